package ipoib.itest;

import static ipoib.itest.Testbed.EXPERIMENTAL;
import static ipoib.itest.Testbed.payload;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.codec.mcast.MulticastMapping;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.junit.After;
import org.junit.Before;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerSuite;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The fabric changes under running interfaces and they heal by themselves, nothing restarted by
 * hand: a new SM (joins and subscriptions forgotten), a new LID, and P_Key table changes (to a
 * limited membership, removed, put back, and an unrelated key added).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class HealingIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast");
    private static final InetAddress GROUP = InetAddress.ofLiteral("239.2.0.1");
    private static final String DEFAULT_PARTITION =
            "Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;";
    /** A partition without a configured broadcast group: the first interface creates it. */
    private static final String PLAIN_PARTITION = "Plain=0x0010 : ALL=full ;";
    /** A partition whose broadcast group an interface with scope=search finds (at scope 2, later 5). */
    private static final String SEARCH_PARTITION = "Search=0x0020, ipoib, scope=%d : ALL=full ;";

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;
    @Inject
    org.osgi.service.log.LogReaderService logReader;

    /** What the ipoib bundles logged lately, for the diagnostics of a failure. */
    private final java.util.concurrent.ConcurrentLinkedDeque<String> log = new java.util.concurrent.ConcurrentLinkedDeque<>();
    private final org.osgi.service.log.LogListener logListener = entry -> {
        if (entry.getBundle() != null && entry.getBundle().getSymbolicName().startsWith("ipoib")) {
            log.add(entry.getLogLevel() + " " + entry.getMessage());
            while (log.size() > 80) {
                log.pollFirst();
            }
        }
    };

    private Testbed bed;
    private MulticastService multicast;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Before
    public void twoInterfacesAndAListener() throws Exception {
        bed = new Testbed(context, configurationAdmin, shell);
        logReader.addLogListener(logListener);
        // INFO from the ipoib bundles (the default is WARN), for the diagnostics of a failure.
        var admin = context.getService(context.getServiceReference(org.osgi.service.log.admin.LoggerAdmin.class));
        var levels = new java.util.HashMap<>(admin.getLoggerContext(null).getLogLevels());
        levels.put(org.osgi.service.log.Logger.ROOT_LOGGER_NAME, org.osgi.service.log.LogLevel.INFO);
        admin.getLoggerContext(null).setLogLevels(levels);
        partitions(2);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.awaitUp("a", "b");
        multicast = bed.multicast();
        Await.until("the multicast manager follows a and b", Duration.ofSeconds(10),
                () -> !multicast.counters("a").isEmpty() && !multicast.counters("b").isEmpty());
        bed.stopListening();
        bed.listen();
        multicast.joinListener("b", GROUP).toCompletableFuture().get(10, TimeUnit.SECONDS);
    }

    @After
    public void leaveTheGroup() throws Exception {
        // The P_Key tables the partitions give (the test of P_Key changes replaced them).
        bed.run("fabric:pkeys loop0/1 0xffff 0x8010 0x8020");
        bed.run("fabric:pkeys loop1/1 0xffff 0x8010 0x8020");
        bed.awaitUp("a", "b");
        Await.until("b's listener join done", Duration.ofSeconds(20), () -> joined("b") == JoinState.FULL_MEMBER);
        multicast.leaveListener("b", GROUP).toCompletableFuture().get(10, TimeUnit.SECONDS);
        logReader.removeLogListener(logListener);
        bed.stopListening();
    }

    /** The fabric's partitions, with the search partition's broadcast group at this scope. */
    private void partitions(int searchScope) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?");
        String[] wanted = {DEFAULT_PARTITION, PLAIN_PARTITION, String.format(SEARCH_PARTITION, searchScope)};
        if (c.getProperties() != null && java.util.Arrays.equals(wanted, (String[]) c.getProperties().get("partitions"))) {
            return;
        }
        java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
        props.put("partitions", wanted);
        c.update(props);
        Await.until("the fabric has the partitions", Duration.ofSeconds(20),
                () -> tryRun("fabric:hcas").contains("0x8020") && tryRun("fabric:groups").contains(
                        String.format("ff1%x:401b:8020::ffff:ffff", searchScope)));
    }

    private Mgid mgid() {
        return MulticastMapping.ipv4((Inet4Address) GROUP, bed.link("a").broadcastGid());
    }

    private JoinState joined(String link) {
        Mgid m = mgid();
        return multicast.groups(link).stream().filter(g -> g.mgid().equals(m)).map(GroupInfo::joinState)
                .filter(java.util.Objects::nonNull).findFirst().orElse(null);
    }

    /** Sends from a to the group and broadcasts, both ways, until each arrives (a join may be under way). */
    private void trafficFlows(String tag) throws Exception {
        bed.clearReceived();
        String toGroup = "group " + tag;
        Await.until("a's multicast reaches b (" + tag + ")", Duration.ofSeconds(20), () -> {
            multicast.send(bed.link("a"), GROUP, EXPERIMENTAL, payload(toGroup));
            try {
                return bed.receives(Duration.ofMillis(50),
                        f -> f.link().equals("b") && f.text().equals(toGroup));
            } catch (InterruptedException e) {
                throw new AssertionError(e);
            }
        }, () -> "\na: " + multicast.groups("a") + "\n" + multicast.counters("a") + "\nb: " + multicast.groups("b")
                + "\n" + tryRun("fabric:groups") + "\nlog:\n" + String.join("\n", log));
        for (String[] pair : new String[][] {{"a", "b"}, {"b", "a"}}) {
            String text = "broadcast " + tag + " from " + pair[0];
            assertEquals(TransmitResult.SENT, bed.link(pair[0]).sendBroadcast(EXPERIMENTAL, payload(text)));
            bed.await(text, f -> f.link().equals(pair[1]) && f.text().equals(text));
        }
    }

    @Test
    public void anSmChangeHealsJoinsAndSubscriptionsWithoutARestart() throws Exception {
        trafficFlows("before the SM change");
        Qpn qpnA = bed.link("a").qpn();
        Qpn qpnB = bed.link("b").qpn();
        long resubscribed = countSubscriptions();
        assertEquals("two wildcard trap subscriptions per port", 4, resubscribed);

        assertTrue(bed.run("fabric:smchange").contains("SM change"));
        Await.until("b joined its group again", Duration.ofSeconds(20),
                () -> run("fabric:groups").contains(bed.link("b").gid() + "  FullMember") && joined("b") != null);
        trafficFlows("after the SM change");
        Await.until("both ports subscribed to traps 66 and 67 again", Duration.ofSeconds(10),
                () -> countSubscriptions() == 4, () -> run("fabric:sa"));
        assertEquals("a was not restarted", qpnA, bed.link("a").qpn());
        assertEquals("b was not restarted", qpnB, bed.link("b").qpn());
    }

    private long countSubscriptions() {
        String sa = run("fabric:sa");
        for (String line : sa.split("\n")) {
            if (line.startsWith("trap subscriptions: ")) {
                return Long.parseLong(line.substring("trap subscriptions: ".length()).strip());
            }
        }
        throw new AssertionError("no subscription count in " + sa);
    }

    /** A command's output, or "" while the command is not there (the provider is restarting). */
    private String tryRun(String command) {
        try {
            return bed.run(command);
        } catch (Exception e) {
            return "";
        }
    }

    private String run(String command) {
        try {
            return bed.run(command);
        } catch (Exception e) {
            throw new AssertionError(command + " failed", e);
        }
    }

    @Test
    public void aLidChangeHealsWithoutARestartAndOwnFramesStayFiltered() throws Exception {
        multicast.joinListener("a", GROUP).toCompletableFuture().get(10, TimeUnit.SECONDS);
        try {
            Qpn qpn = bed.link("a").qpn();
            int lid = bed.link("a").port().attributes().lid().value();
            int newLid = lid == 0x40 ? 0x41 : 0x40;
            bed.run("fabric:lid loop0/1 " + newLid);
            Await.until("a's port has the new LID", Duration.ofSeconds(5),
                    () -> bed.link("a").port().attributes().lid().value() == newLid);
            trafficFlows("after the LID change");
            assertEquals(LinkState.UP, bed.link("a").state());
            assertEquals("a was not restarted", qpn, bed.link("a").qpn());
            long own = bed.link("a").dropCounters().get("rx_dropped_own_multicast");
            bed.clearReceived();
            assertEquals(TransmitResult.SENT, multicast.send(bed.link("a"), GROUP, EXPERIMENTAL, payload("own")));
            bed.await("b gets it", f -> f.link().equals("b") && f.text().equals("own"));
            Await.until("a's own copy is recognised by its new LID", Duration.ofSeconds(5),
                    () -> bed.link("a").dropCounters().get("rx_dropped_own_multicast") == own + 1);
            assertTrue(bed.drainThrough("b", "a").stream().noneMatch(f -> f.link().equals("a")));
        } finally {
            multicast.leaveListener("a", GROUP).toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
    }

    @Test
    public void aPKeyTableChangeHeals() throws Exception {
        trafficFlows("before the P_Key changes");
        IpoibLink b = bed.link("b");
        Mgid broadcast = b.broadcastGid();

        // Full → limited membership: a new queue pair on the limited key, the same broadcast-GID
        // (it always carries the full-membership P_Key, RFC 4391 §4.1).
        Qpn before = b.qpn();
        bed.run("fabric:pkeys loop1/1 0x7fff");
        Await.until("b came up again as a limited member", Duration.ofSeconds(20),
                () -> bed.link("b").state() == LinkState.UP && !before.equals(bed.link("b").qpn()),
                () -> bed.link("b").stateReason());
        assertEquals(broadcast, bed.link("b").broadcastGid());
        assertEquals("ff12:401b:ffff::ffff:ffff", bed.link("b").broadcastGid().toString());
        Await.until("b's listener group joined again", Duration.ofSeconds(20),
                () -> joined("b") == JoinState.FULL_MEMBER);
        trafficFlows("as a limited member");

        // Removed: DOWN, with the reason.
        bed.run("fabric:pkeys loop1/1 0x8001");
        Await.until("b DOWN without its P_Key", Duration.ofSeconds(10),
                () -> bed.link("b").state() == LinkState.DOWN
                        && bed.link("b").stateReason().contains("P_Key 0xffff is not in the P_Key table"),
                () -> bed.link("b").state() + ": " + bed.link("b").stateReason());
        assertEquals(TransmitResult.DROPPED_LINK_DOWN,
                multicast.send(bed.link("b"), GROUP, EXPERIMENTAL, payload("while down")));

        // Put back: UP, the listener's group joined again.
        bed.run("fabric:pkeys loop1/1 0xffff");
        bed.awaitUp("b");
        Await.until("b's listener group joined again", Duration.ofSeconds(20),
                () -> joined("b") == JoinState.FULL_MEMBER);
        trafficFlows("with the P_Key back");

        // Another partition added beside ours: the queue pair's entry is unchanged, nothing restarts.
        Qpn qpnA = bed.link("a").qpn();
        bed.run("fabric:pkeys loop0/1 0xffff 0x8001");
        trafficFlows("with another partition beside");
        assertEquals("a was not restarted", qpnA, bed.link("a").qpn());
        assertNotEquals(LinkState.DOWN, bed.link("a").state());
    }

    /**
     * In a partition without a configured broadcast group the interfaces created it; a new SM
     * deletes it with every join, the re-join creates it again under a new MLID, and the
     * interfaces follow the new MLID without a restart.
     */
    @Test
    public void anSmChangeMovesACreatedBroadcastGroupToItsNewMlidWithoutARestart() throws Exception {
        bed.createLink("p", "loop0", "pkey", "0x8010");
        bed.createLink("q", "loop1", "pkey", "0x8010");
        bed.awaitUp("p", "q");
        Qpn qpnP = bed.link("p").qpn();
        Qpn qpnQ = bed.link("q").qpn();
        var mlid = bed.link("p").broadcastGroup().mlid();
        bed.run("fabric:smchange");
        Await.until("the broadcast group has a new MLID", Duration.ofSeconds(20),
                () -> bed.link("p").broadcastGroup() != null && !bed.link("p").broadcastGroup().mlid().equals(mlid)
                        && bed.link("q").broadcastGroup() != null
                        && bed.link("q").broadcastGroup().mlid().equals(bed.link("p").broadcastGroup().mlid()),
                () -> run("fabric:groups"));
        for (String[] pair : new String[][] {{"p", "q"}, {"q", "p"}}) {
            String text = "broadcast from " + pair[0] + " after the SM change";
            assertEquals(TransmitResult.SENT, bed.link(pair[0]).sendBroadcast(EXPERIMENTAL, payload(text)));
            bed.await(text, f -> f.link().equals(pair[1]) && f.text().equals(text));
        }
        assertEquals("p was not restarted", qpnP, bed.link("p").qpn());
        assertEquals("q was not restarted", qpnQ, bed.link("q").qpn());
    }

    /**
     * An interface searching the broadcast-GID's scope (RFC 4391 §4.1) finds it at scope 5 after
     * the fabric moved it: the broadcast-GID and every multicast MGID are derived again, and the
     * listener's group is joined under its new MGID.
     */
    @Test
    public void aBroadcastGroupFoundAtAnotherScopeDerivesEveryMgidAgain() throws Exception {
        InetAddress group = InetAddress.ofLiteral("239.2.0.9");
        bed.createLink("s", "loop0", "pkey", "0x8020", "scope", "search");
        bed.awaitUp("s");
        assertEquals("ff12:401b:8020::ffff:ffff", bed.link("s").broadcastGid().toString());
        GroupInfo before = multicast.joinListener("s", group).toCompletableFuture().get(10, TimeUnit.SECONDS);
        assertEquals("ff12:401b:8020::f02:9", before.mgid().toString());
        try {
            partitions(5);
            Await.until("s found the broadcast group at scope 5", Duration.ofSeconds(20),
                    () -> bed.link("s"), s -> s.state() == LinkState.UP
                            && s.broadcastGid().toString().equals("ff15:401b:8020::ffff:ffff"));
            Await.until("the listener's group is joined under its new MGID", Duration.ofSeconds(20),
                    () -> multicast.groups("s").stream().anyMatch(g -> g.mgid().toString().equals("ff15:401b:8020::f02:9")
                            && g.joinState() == JoinState.FULL_MEMBER),
                    () -> multicast.groups("s").toString());
            assertTrue(multicast.groups("s").stream().noneMatch(g -> g.mgid().equals(before.mgid())));
            assertTrue(run("fabric:groups").contains("ff15:401b:8020::f02:9"));
            multicast.leaveListener("s", group).toCompletableFuture().get(10, TimeUnit.SECONDS);
        } finally {
            partitions(2);
        }
    }
}
