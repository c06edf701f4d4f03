package ipoib.mcast.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.mcast.GroupInfo;
import ipoib.codec.mcast.MulticastMapping;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The manager of every link, built without DS on a manual control loop: what outlives a link's service. */
class MulticastEngineTest {
    private final TestEnvironment env = new TestEnvironment();
    private final FakeSa sa = new FakeSa();
    private final MulticastEngine engine = new MulticastEngine(env.loop, McastSettings.defaults(), env);
    private static final InetAddress GROUP = InetAddress.ofLiteral("239.7.7.7");

    @AfterEach
    void stop() {
        env.close();
    }

    private static Mgid mgid(FakeLink link) {
        return MulticastMapping.ipv4((Inet4Address) GROUP, link.broadcastGid());
    }

    private GroupInfo listenerGroup(String name) {
        return engine.groups(name).stream().filter(g -> GROUP.equals(g.group())).findFirst().orElse(null);
    }

    /** The listener of a link's service that goes and comes back (link bundle restart). */
    @Test
    void aListenerSurvivesTheLinkServiceGoingAndComingBack() throws Exception {
        FakeLink first = new FakeLink("nl", sa, 0x11, 0x100);
        engine.addLink(first, 1000, 5);
        var joined = engine.joinListener("nl", GROUP).toCompletableFuture();
        env.settle();
        assertEquals(JoinState.FULL_MEMBER, joined.get(0, TimeUnit.SECONDS).joinState());

        engine.removeLink(first);
        env.settle();
        assertTrue(sa.membership(mgid(first), first.gid).isEmpty(), "the gone service's membership is left");
        FakeLink again = new FakeLink("nl", sa, 0x11, 0x101);
        engine.addLink(again, 1000, 5);
        env.settle();
        GroupInfo g = listenerGroup("nl");
        assertEquals(1, g.listeners(), String.valueOf(g));
        assertEquals(JoinState.FULL_MEMBER, g.joinState());
        assertTrue(sa.membership(mgid(again), again.gid).contains(JoinState.FULL_MEMBER));

        engine.leaveListener("nl", GROUP);
        env.settle();
        assertTrue(sa.membership(mgid(again), again.gid).isEmpty(), "the listener's leave is the last");
    }

    /** A P_Key change of a named link registers a new service: the listener follows to the new MGID. */
    @Test
    void aListenerFollowsAPKeyChangeOfANamedLink() throws Exception {
        FakeLink before = new FakeLink("nl", sa, 0x11, 0x100);
        engine.addLink(before, 1000, 5);
        engine.joinListener("nl", GROUP);
        engine.joinListener("nl", GROUP);
        env.settle();
        FakeLink after = new FakeLink("nl", sa, 0x11, 0x102);
        after.pkey = PKey.of(0x8001);
        engine.addLink(after, 1000, 5); // the new registration replaces the old one
        env.settle();
        GroupInfo g = listenerGroup("nl");
        assertEquals(mgid(after), g.mgid());
        assertEquals("ff12:401b:8001::f07:707", g.mgid().toString(), "RFC 4391 §4: the low 28 bits of the IPv4 group");
        assertEquals(2, g.listeners());
        assertEquals(JoinState.FULL_MEMBER, g.joinState());
        assertTrue(sa.membership(mgid(before), before.gid).isEmpty(), "the old P_Key's group is left");
    }

    /** A changed audit period reaches every link at once (the component's update). */
    @Test
    void aChangedAuditPeriodAppliesAtOnceToEveryLink() {
        FakeLink link = new FakeLink("a", sa, 0x11, 0x100);
        engine.addLink(link, 1000, 5);
        env.settle();
        sa.loseTraps = true;
        InetAddress absent = InetAddress.ofLiteral("224.0.0.99");
        var packet = java.lang.foreign.MemorySegment.ofArray(new byte[] {1, 2, 3});
        assertEquals(ipoib.api.link.TransmitResult.QUEUED, engine.send(link, absent, 0x88B5, packet));
        env.settle();
        assertEquals(1L, engine.counters("a").get("tx_dropped_no_route"));
        sa.addGroup(MulticastMapping.ipv4((Inet4Address) absent, link.broadcastGid()), new ipoib.api.Gid(
                ipoib.api.Gid.DEFAULT_SUBNET_PREFIX, 0x22));
        env.advance(10_000);
        assertEquals(ipoib.api.link.TransmitResult.DROPPED_NO_ROUTE, engine.send(link, absent, 0x88B5, packet),
                "absent until the audit (60 s)");
        engine.update(new McastSettings(64, 1024, 5_000));
        env.advance(0);
        assertEquals(ipoib.api.link.TransmitResult.QUEUED, engine.send(link, absent, 0x88B5, packet),
                "the 5 s period was over: the audit ran at once and forgot the absence");
    }

    /** A listener that leaves while its interface's service is away is not joined on the next service. */
    @Test
    void aListenerThatLeavesWhileTheServiceIsAwayIsNotRestored() throws Exception {
        FakeLink first = new FakeLink("nl", sa, 0x11, 0x100);
        engine.addLink(first, 1000, 5);
        engine.joinListener("nl", GROUP);
        env.settle();
        engine.removeLink(first);
        var left = engine.leaveListener("nl", GROUP).toCompletableFuture();
        env.settle();
        assertTrue(left.isDone() && !left.isCompletedExceptionally());
        FakeLink again = new FakeLink("nl", sa, 0x11, 0x101);
        engine.addLink(again, 1000, 5);
        env.settle();
        assertEquals(null, listenerGroup("nl"));
        assertTrue(sa.membership(mgid(again), again.gid).isEmpty());
        var unknown = engine.leaveListener("nl", GROUP).toCompletableFuture();
        env.settle();
        assertTrue(unknown.isCompletedExceptionally(), "no listener left to leave");
    }
}
