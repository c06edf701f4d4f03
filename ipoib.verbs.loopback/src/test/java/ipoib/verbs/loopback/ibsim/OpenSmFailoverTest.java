package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.verbs.PortEvent;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * SM failover on the loopback fabric with Debian's OpenSM: a second OpenSM of a lower priority
 * stays STANDBY beside the master, and takes over when the master is killed; the HCA ports then
 * have the new SM's LID, are asked to register again (the new master sets PortInfo's
 * ClientReregister on its first sweep, osm_lid_mgr.c lid_mgr_set_physp_pi), and their SA
 * clients join at the new master.
 */
class OpenSmFailoverTest {
    private static final Mgid BROADCAST = Mgid.parse("ff12:401b:ffff::ffff:ffff");
    /** The standby polls the master every 500 ms and takes over after two polls unanswered (defaults: 10 s, 4). */
    private static final String FAST_POLLING = "sminfo_polling_timeout 500\npolling_retry_number 2\n";
    private static final long WAIT_MILLIS = 20_000;

    @Test
    void aStandbyOfLowerPriorityTakesOverWhenTheMasterIsKilledAndThePortsRegisterAgain(@TempDir Path dir)
            throws Exception {
        try (OpenSmOnLoopback subnet = OpenSmOnLoopback.start(dir, OpenSmOnLoopbackTest.TWO_SWITCHES,
                OpenSmOnLoopbackTest.PARTITIONS, LoopbackSubnet.UNTRUSTED_SM_KEY, List.of("-p", "2"))) {
            OpenSmOnLoopback.Sm standby = subnet.startOpenSm("standby", "hca3", OpenSmOnLoopbackTest.PARTITIONS,
                    FAST_POLLING, "Entering STANDBY state", List.of("-p", "1"));
            String standbyLid = Integer.toString(subnet.subnet.fabric().topology().node("hca3").port(1).lid());
            String sminfo = subnet.tool("sminfo", standbyLid);
            assertTrue(sminfo.contains("priority 1 state 2 SMINFO_STANDBY"), sminfo);
            sminfo = subnet.tool("sminfo");
            assertTrue(sminfo.contains("priority 2 state 3 SMINFO_MASTER"), sminfo);

            LoopPort loop0 = subnet.subnet.fabric().devices().getFirst().loopPorts().getFirst();
            BlockingQueue<PortEvent.Type> events = new LinkedBlockingQueue<>();
            try (AutoCloseable listening = loop0.addEventListener(e -> events.add(e.type()))) {
                subnet.openSm().kill();
                standby.awaitLog("Entering MASTER state");
                standby.awaitLog("SUBNET UP");
                sminfo = subnet.tool("sminfo");
                assertTrue(sminfo.startsWith("sminfo: sm lid " + standbyLid + " ")
                        && sminfo.contains("priority 1 state 3 SMINFO_MASTER"), sminfo);
                awaitEvents(events, Set.of(PortEvent.Type.SM_CHANGE, PortEvent.Type.CLIENT_REREGISTER));
            }
            assertEquals(standbyLid, Integer.toString(loop0.attributes().smLid().value()));
            McMemberRecord joined = loop0.subnetAdministrator().join(BROADCAST, loop0.gid(0), JoinState.FULL_MEMBER)
                    .toCompletableFuture().get(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            assertEquals(BROADCAST, joined.mgid());
            String members = subnet.tool("saquery", "--smkey", "1", "-m"); // trusted: the members' GIDs
            assertTrue(members.contains(loop0.gid(0).toString()), "the new master has loop0 in its groups:\n" + members);
        }
    }

    /** Waits until the port has raised every one of {@code wanted}. */
    private static void awaitEvents(BlockingQueue<PortEvent.Type> events, Set<PortEvent.Type> wanted)
            throws Exception {
        Set<PortEvent.Type> seen = EnumSet.noneOf(PortEvent.Type.class);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!seen.containsAll(wanted)) {
            PortEvent.Type next = events.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (next == null) {
                throw new AssertionError("loop0 raised " + seen + ", not all of " + wanted);
            }
            seen.add(next);
        }
    }
}
