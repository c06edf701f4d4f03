package ipoib.mcast.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.event.IpoibEvents;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import ipoib.api.sa.SaStatus;
import ipoib.codec.mcast.MulticastMapping;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group manager of one link against an in-memory SA with OpenSM's multicast rules: the
 * egress decision of RFC 4391 §10 branch by branch, queues, joins, leaves, traps, router mode
 * (§11), failures (§12) and the link's changes.
 */
class LinkGroupsTest {
    private static final int ETHER = 0x88B5;

    private final TestEnvironment env = new TestEnvironment();
    private final FakeSa sa = new FakeSa();
    private final FakeLink link = new FakeLink("a", sa, 0x11, 0x100);
    /** Another port of the subnet: it creates and leaves groups. */
    private final Gid other = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x22);

    @AfterEach
    void stop() {
        env.close();
    }

    private LinkGroups manager(int retryCount) {
        return env.manager(link, retryCount);
    }

    private static InetAddress ip(String literal) {
        return InetAddress.ofLiteral(literal);
    }

    private Mgid mgid(String group) {
        InetAddress a = ip(group);
        return a instanceof Inet4Address v4 ? MulticastMapping.ipv4(v4, link.broadcastGid())
                : MulticastMapping.ipv6((Inet6Address) a, link.broadcastGid());
    }

    private static MemorySegment text(String s) {
        return MemorySegment.ofArray(s.getBytes(StandardCharsets.US_ASCII));
    }

    private GroupInfo info(LinkGroups groups, String group) {
        Mgid m = mgid(group);
        return env.call(() -> groups.snapshot().stream().filter(g -> g.mgid().equals(m)).findFirst().orElse(null));
    }

    private EgressDecision decide(LinkGroups groups, String group) throws Exception {
        return env.call(() -> groups.decide(ip(group))).get(10, TimeUnit.SECONDS);
    }

    private GroupInfo joinListener(LinkGroups groups, String group) throws Exception {
        return env.call(() -> groups.joinListener(ip(group))).get(10, TimeUnit.SECONDS);
    }

    private long counter(LinkGroups groups, String name) {
        return groups.counters().snapshot().get(name);
    }

    private List<String> sentTo(String group) {
        Mgid m = mgid(group);
        return link.sent.stream().filter(s -> s.group().equals(m)).map(FakeLink.Sent::text).toList();
    }

    @Test
    void aListenerCreatesTheGroupWithTheBroadcastGroupsParameters() throws Exception {
        LinkGroups groups = manager(5);
        GroupInfo joined = joinListener(groups, "239.1.1.1");
        assertEquals(JoinState.FULL_MEMBER, joined.joinState());
        assertEquals(GroupOrigin.LISTENER, joined.origin());
        assertEquals(1, joined.listeners());
        McMemberRecord template = sa.creates.get(0);
        McMemberRecord broadcast = sa.broadcastRecord(link.broadcastGid());
        assertEquals(mgid("239.1.1.1"), template.mgid());
        assertEquals(link.gid, template.portGid());
        assertEquals(broadcast.pkey(), template.pkey());
        assertEquals(broadcast.qkey(), template.qkey());
        assertEquals(broadcast.serviceLevel(), template.serviceLevel());
        assertEquals(broadcast.mtu(), template.mtu());
        assertEquals(broadcast.rate(), template.rate());
        assertEquals(broadcast.flowLabel(), template.flowLabel());
        assertEquals(broadcast.hopLimit(), template.hopLimit());
        assertEquals(broadcast.trafficClass(), template.trafficClass());
        assertEquals(Boolean.TRUE, link.routes.get(mgid("239.1.1.1")), "the queue pair is attached to receive");
        assertTrue(env.events.stream().anyMatch(e -> e.topic().equals(IpoibEvents.GROUP_JOINED)
                && "FullMember".equals(e.properties().get(IpoibEvents.JOIN_STATE))));
    }

    @Test
    void theLastListenerLeavesTheGroup() throws Exception {
        LinkGroups groups = manager(5);
        joinListener(groups, "239.1.1.2");
        joinListener(groups, "239.1.1.2");
        env.call(() -> groups.leaveListener(ip("239.1.1.2"))).get(10, TimeUnit.SECONDS);
        assertEquals(1, info(groups, "239.1.1.2").listeners());
        assertTrue(link.routes.containsKey(mgid("239.1.1.2")));
        env.call(() -> groups.leaveListener(ip("239.1.1.2"))).get(10, TimeUnit.SECONDS);
        assertTrue(sa.requests.contains("leave " + mgid("239.1.1.2") + " FullMember"));
        assertFalse(link.routes.containsKey(mgid("239.1.1.2")));
        assertFalse(sa.exists(mgid("239.1.1.2")), "the last FullMember's leave deleted the group");
        ExecutionException notAListener = org.junit.jupiter.api.Assertions.assertThrows(ExecutionException.class,
                () -> env.call(() -> groups.leaveListener(ip("239.1.1.2"))).get(10, TimeUnit.SECONDS));
        assertTrue(notAListener.getCause().getMessage().contains("no listener of 239.1.1.2 on a"));
    }

    @Test
    void aMemberSendAllocatesNothing() throws Exception {
        LinkGroups groups = manager(5);
        joinListener(groups, "239.1.1.3");
        link.record = false;
        InetAddress group = ip("239.1.1.3");
        MemorySegment payload = text("steady state");
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        int rounds = 20_000;
        for (int i = 0; i < 5 * rounds; i++) {
            groups.send(link, group, ETHER, payload);
        }
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < rounds; i++) {
            if (groups.send(link, group, ETHER, payload) != TransmitResult.SENT) {
                throw new AssertionError("not sent");
            }
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // One object per send would be 16 octets or more per send; allow a few stray objects in all.
        assertTrue(allocated < rounds, allocated + " octets allocated in " + rounds + " member sends");
        assertEquals(6L * rounds, link.sendCount);
    }

    @Test
    void theEgressDecisionTakesEveryBranchOfSection10() throws Exception {
        LinkGroups groups = manager(5);
        sa.addGroup(mgid("239.1.2.1"), other);
        assertEquals(EgressDecision.JOIN_SEND_ONLY_THEN_SEND, decide(groups, "239.1.2.1"), "the group exists");
        assertEquals(EgressDecision.DROP, decide(groups, "239.1.2.2"), "absent, and no routers");
        assertEquals(EgressDecision.DROP, decide(groups, "224.0.0.200"), "absent and link-local");
        sa.addGroup(mgid("224.0.0.2"), other);
        env.check("the all-routers group is known from its trap", () -> decide0(groups, "239.1.2.2") == EgressDecision.SEND_TO_ALL_ROUTERS);
        assertEquals(EgressDecision.DROP, decide(groups, "224.0.0.200"), "link-local groups never go to routers");
        assertEquals(EgressDecision.DROP, decide(groups, "ff05::1"), "IPv6 needs the IPv6 all-routers group");
        sa.addGroup(mgid("ff02::2"), other);
        env.check("the IPv6 all-routers group is known", () -> decide0(groups, "ff05::1") == EgressDecision.SEND_TO_ALL_ROUTERS);
        assertEquals(EgressDecision.DROP, decide(groups, "ff02::1:5"), "an IPv6 link-local group");
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.2.1"), ETHER, text("join first")));
        env.check("a is a SendOnlyNonMember", () -> decide0(groups, "239.1.2.1") == EgressDecision.SEND);
        assertEquals(List.of("join first"), sentTo("239.1.2.1"));
        assertEquals(java.util.Set.of(JoinState.SEND_ONLY_NON_MEMBER), sa.membership(mgid("239.1.2.1"), link.gid));
        assertEquals(Boolean.FALSE, link.routes.get(mgid("239.1.2.1")), "a send-only member does not receive");
    }

    /** The decision when the cache knows it, else null (a lookup is then under way). */
    private EgressDecision decide0(LinkGroups groups, String group) {
        return env.call(() -> {
            var f = groups.decide(ip(group));
            return f.isDone() ? f.join() : null;
        });
    }

    @Test
    void framesWaitForTheJoinInABoundedQueueAndGoOutInOrder() throws Exception {
        LinkGroups groups = manager(5);
        sa.addGroup(mgid("239.1.3.1"), other);
        sa.hold = true;
        int queued = 0;
        int full = 0;
        for (int i = 0; i < 70; i++) {
            TransmitResult r = groups.send(link, ip("239.1.3.1"), ETHER, text("frame " + i));
            if (r == TransmitResult.QUEUED) {
                queued++;
            } else if (r == TransmitResult.DROPPED_QUEUE_FULL) {
                full++;
            }
        }
        assertEquals(64, queued);
        assertEquals(6, full);
        assertEquals(6, counter(groups, "tx_dropped_queue_full"));
        // The SA answers (the lookup, unless trap 66 told of the group first, and the join) only now.
        sa.release();
        env.check("the queue is drained", () -> sentTo("239.1.3.1").size() == 64);
        for (int i = 0; i < 64; i++) {
            assertEquals("frame " + i, sentTo("239.1.3.1").get(i));
        }
        assertEquals(64, counter(groups, "tx_sent_after_join"));
        assertEquals(TransmitResult.SENT, groups.send(link, ip("239.1.3.1"), ETHER, text("direct")));
    }

    @Test
    void aSenderJoinsAGroupItsSaHidesFromItsQueries() throws Exception {
        sa.addGroup(mgid("239.1.3.2"), other);
        sa.untrusted = true;
        LinkGroups groups = manager(5);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.3.2"), ETHER, text("hidden group")));
        env.check("sent after the join", () -> sentTo("239.1.3.2").contains("hidden group"));
        assertTrue(sa.requests.stream().noneMatch(r -> r.startsWith("group ")), "the join itself asks: " + sa.requests);
    }

    @Test
    void absentGroupsGoToAllRoutersUntilTrap66MovesThemToTheNewGroup() throws Exception {
        LinkGroups groups = manager(5);
        sa.addGroup(mgid("224.0.0.2"), other);
        groups.send(link, ip("239.1.4.1"), ETHER, text("one"));
        env.check("sent through all-routers", () -> sentTo("224.0.0.2").contains("one"));
        assertEquals(TransmitResult.SENT, groups.send(link, ip("239.1.4.1"), ETHER, text("two")),
                "absence and the all-routers membership are cached");
        assertEquals(List.of("one", "two"), sentTo("224.0.0.2"));
        assertEquals(2, counter(groups, "tx_via_all_routers"));

        sa.addGroup(mgid("239.1.4.1"), other);
        env.check("trap 66 seen", () -> counter(groups, "traps_created") == 1);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.4.1"), ETHER, text("three")));
        env.check("sent to the new group", () -> sentTo("239.1.4.1").contains("three"));
        assertEquals(List.of("one", "two"), sentTo("224.0.0.2"));

        // Trap 67: the group is gone, its route and membership forgotten; traffic goes to the routers again.
        sa.removeMember(mgid("239.1.4.1"), other);
        env.check("trap 67 seen", () -> counter(groups, "traps_deleted") == 1);
        assertFalse(link.routes.containsKey(mgid("239.1.4.1")));
        assertNull(info(groups, "239.1.4.1"), "a deleted group is forgotten");
        groups.send(link, ip("239.1.4.1"), ETHER, text("four"));
        env.check("back to the routers", () -> sentTo("224.0.0.2").contains("four"));
    }

    @Test
    void withoutAGroupOrRoutersFramesAreDroppedAndCounted() throws Exception {
        LinkGroups groups = manager(5);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.5.1"), ETHER, text("lookup")));
        env.check("dropped after the lookup", () -> counter(groups, "tx_dropped_no_route") == 1);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, groups.send(link, ip("239.1.5.1"), ETHER, text("cached")));
        assertEquals(2, counter(groups, "tx_dropped_no_route"));
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, groups.send(link, ip("10.0.0.1"), ETHER, text("unicast")));
        assertEquals(1, counter(groups, "tx_dropped_not_multicast"));
        assertEquals(TransmitResult.DROPPED_TOO_BIG, groups.send(link, ip("239.1.5.1"), ETHER,
                MemorySegment.ofArray(new byte[2045])));
        assertTrue(link.sent.isEmpty());
        assertEquals(TransmitResult.SENT, groups.send(link, ip("255.255.255.255"), ETHER, text("broadcast")));
    }

    @Test
    void aFailedSendOnlyJoinFreesItsFramesAndRestsAfterTheRetryCount() throws Exception {
        sa.addGroup(mgid("239.1.6.1"), other); // before the manager: no trap 66 races with the failure
        LinkGroups groups = manager(1);
        sa.failStatus = SaStatus.NO_RESOURCES;
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.6.1"), ETHER, text("lost")));
        env.check("the frame is freed and counted", () -> counter(groups, "tx_dropped_join_failed") == 1);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, groups.send(link, ip("239.1.6.1"), ETHER, text("resting")));
        assertEquals(2, counter(groups, "tx_dropped_join_failed"));
        assertEquals("FAILED, frames dropped for 1 s (no resources)", info(groups, "239.1.6.1").state().replaceAll(
                "\\(.*(no resources|NO_RESOURCES).*\\)", "(no resources)"));
        assertTrue(env.events.stream().anyMatch(e -> e.topic().equals(IpoibEvents.GROUP_JOIN_FAILED)
                && String.valueOf(e.properties().get(IpoibEvents.REASON)).contains("no resources")));
        assertTrue(env.warnings.stream().anyMatch(w -> w.contains("failed (attempt 1)")), env.warnings.toString());
        sa.failStatus = 0;
        env.advance(999);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, groups.send(link, ip("239.1.6.1"), ETHER, text("still resting")),
                "the rest is the first backoff, 1 s");
        env.advance(1);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.6.1"), ETHER, text("again")));
        env.check("sent", () -> sentTo("239.1.6.1").contains("again"));
    }

    @Test
    void aFailedListenerJoinIsRetriedAfterTheBackoff() throws Exception {
        LinkGroups groups = manager(5);
        sa.failStatus = SaStatus.NO_RESOURCES;
        var joining = env.call(() -> groups.joinListener(ip("239.1.7.1")));
        env.check("the first attempt failed", () -> counter(groups, "join_failures") == 1);
        assertTrue(info(groups, "239.1.7.1").state().startsWith("RETRY in 1 s (1 failed, last: "),
                info(groups, "239.1.7.1").state());
        sa.failStatus = 0;
        env.advance(999);
        assertEquals(1, sa.requests.stream().filter(r -> r.startsWith("create " + mgid("239.1.7.1"))).count());
        env.advance(1);
        assertEquals(JoinState.FULL_MEMBER, joining.getNow(null).joinState());
        assertEquals(2, sa.requests.stream().filter(r -> r.startsWith("create " + mgid("239.1.7.1"))).count());
    }

    /**
     * Linux keeps retrying a listener's join (ipoib_mcast_join_complete), so does
     * the manager, at the backoff's ceiling, past the link's retry count; the group's state says
     * what is happening, and the join completes once the SA answers.
     */
    @Test
    void aListenerJoinKeepsRetryingAtTheCeilingAndCompletesOnceTheSaRecovers() throws Exception {
        LinkGroups groups = manager(2);
        sa.failStatus = SaStatus.NO_RESOURCES;
        var joining = env.call(() -> groups.joinListener(ip("239.1.7.2")));
        env.settle();
        env.advance(1000); // the second attempt after the first backoff, 1 s
        assertEquals(2, sa.requests.stream().filter(r -> r.startsWith("create " + mgid("239.1.7.2"))).count());
        GroupInfo after = info(groups, "239.1.7.2");
        assertEquals(1, after.listeners(), "the listener stays past the retry count");
        assertTrue(after.state().startsWith("RETRY in 2 s (2 failed, last: "), after.state());
        for (int attempt = 3; attempt <= 6; attempt++) {
            env.advance(2000); // retryCount 2: one doubling, then the ceiling
            assertEquals(attempt, sa.requests.stream().filter(r -> r.startsWith("create " + mgid("239.1.7.2"))).count());
            assertFalse(joining.isDone(), "the join is still under way");
        }
        assertTrue(info(groups, "239.1.7.2").state().startsWith("RETRY in 2 s (6 failed, last: "));
        sa.failStatus = 0;
        env.advance(2000);
        assertEquals(JoinState.FULL_MEMBER, joining.getNow(null).joinState());
        assertEquals("JOINED", info(groups, "239.1.7.2").state());
        assertTrue(sa.membership(mgid("239.1.7.2"), link.gid).contains(JoinState.FULL_MEMBER));
    }

    /**
     * With the link's default retry count (5), a failing listener join is tried again 1, 2, 4 and
     * 8 s apart (Linux's ipoib_mcast_join_complete doubles the backoff up to its ceiling), then
     * every 16 s; the listener stays, the state says how many failed, and the next attempt after
     * the SA recovers joins.
     */
    @Test
    void aListenerJoinBacksOffOneTwoFourEightSixteenSecondsAndJoinsAtTheNextAttemptOnceTheSaAnswers()
            throws Exception {
        LinkGroups groups = manager(5);
        sa.failStatus = SaStatus.NO_RESOURCES;
        var joining = env.call(() -> groups.joinListener(ip("239.7.7.8")));
        env.settle();
        long[] backoffMillis = {1000, 2000, 4000, 8000};
        for (int failed = 1; failed <= backoffMillis.length; failed++) {
            long wait = backoffMillis[failed - 1];
            assertTrue(info(groups, "239.7.7.8").state().startsWith("RETRY in " + wait / 1000 + " s (" + failed
                    + " failed, last: "), info(groups, "239.7.7.8").state());
            env.advance(wait - 1);
            assertEquals(failed, creates("239.7.7.8"), "not before the backoff");
            env.advance(1);
            assertEquals(failed + 1, creates("239.7.7.8"));
        }
        GroupInfo waiting = info(groups, "239.7.7.8");
        assertTrue(waiting.state().startsWith("RETRY in 16 s (5 failed, last: "), waiting.state());
        assertEquals(1, waiting.listeners(), "the listener stays past the retry count");
        assertFalse(joining.isDone());
        env.advance(16_000);
        assertEquals(6, creates("239.7.7.8"), "at the ceiling");
        assertTrue(info(groups, "239.7.7.8").state().startsWith("RETRY in 16 s (6 failed, last: "));
        sa.failStatus = 0;
        env.advance(15_999);
        assertFalse(joining.isDone(), "the SA answers again, the next attempt is 16 s after the last");
        env.advance(1);
        assertEquals(JoinState.FULL_MEMBER, joining.getNow(null).joinState());
        assertEquals("JOINED", info(groups, "239.7.7.8").state());
    }

    private long creates(String group) {
        return sa.requests.stream().filter(r -> r.startsWith("create " + mgid(group))).count();
    }

    @Test
    void aListenerThatLeavesWhileItsJoinIsRetriedIsToldAndNothingIsJoined() throws Exception {
        LinkGroups groups = manager(2);
        sa.failStatus = SaStatus.NO_RESOURCES;
        var joining = env.call(() -> groups.joinListener(ip("239.1.7.3")));
        env.advance(1000);
        env.call(() -> groups.leaveListener(ip("239.1.7.3")));
        var failed = org.junit.jupiter.api.Assertions.assertThrows(java.util.concurrent.CompletionException.class,
                () -> joining.getNow(null));
        assertTrue(failed.getCause().getMessage().contains("left before the join completed"), failed.getMessage());
        sa.failStatus = 0;
        env.advance(60_000);
        assertEquals(2, sa.requests.stream().filter(r -> r.startsWith("create " + mgid("239.1.7.3"))).count(),
                "no retry after the leave");
        assertTrue(info(groups, "239.1.7.3") == null || info(groups, "239.1.7.3").listeners() == 0);
    }

    @Test
    void theAuditRepairsWhatLostTrapsLeftWrong() throws Exception {
        // The send-only membership stays unused for longer than the idle time: not left for it here.
        env.settings = new McastSettings(64, 1024, 60_000, 3_600_000);
        LinkGroups groups = manager(5);
        sa.loseTraps = true;
        // A group deleted and created anew without traps: the send-only member follows its new MLID.
        McMemberRecord first = sa.addGroup(mgid("239.1.12.1"), other);
        groups.send(link, ip("239.1.12.1"), ETHER, text("first"));
        env.check("sent", () -> sentTo("239.1.12.1").contains("first"));
        sa.removeMember(mgid("239.1.12.1"), other);
        McMemberRecord second = sa.addGroup(mgid("239.1.12.1"), other);
        assertTrue(!second.mlid().equals(first.mlid()));
        env.advance(59_999);
        assertEquals(first.mlid(), link.mlids.get(mgid("239.1.12.1")), "no audit before its period");
        env.advance(1);
        env.check("the route follows the new MLID", () -> second.mlid().equals(link.mlids.get(mgid("239.1.12.1"))));
        // A group deleted without trap 67: the membership is forgotten at the next audit.
        sa.removeMember(mgid("239.1.12.1"), other);
        env.advance(60_000);
        env.check("the gone group's route is removed", () -> !link.routes.containsKey(mgid("239.1.12.1")));
        assertEquals(2, counter(groups, "audit_repairs"));
    }

    /**
     * A group created while traps are lost reaches a sender within the audit
     * period plus one join, wherever in the period its absence was learned.
     */
    @Test
    void anAbsenceLearnedLateInAnAuditPeriodIsForgottenAtTheNextAudit() throws Exception {
        LinkGroups groups = manager(5);
        sa.loseTraps = true;
        env.advance(1_000); // the absence is learned 1 s into the period
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("224.0.0.77"), ETHER, text("early")));
        env.check("absent", () -> counter(groups, "tx_dropped_no_route") == 1);
        sa.addGroup(mgid("224.0.0.77"), other);
        env.advance(58_999);
        assertEquals(TransmitResult.DROPPED_NO_ROUTE, groups.send(link, ip("224.0.0.77"), ETHER, text("cached")),
                "the absence is cached until the audit");
        env.advance(1); // the audit, 60 s after UP
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("224.0.0.77"), ETHER, text("late")));
        env.check("sent after one join", () -> sentTo("224.0.0.77").contains("late"));
    }

    /** A new audit period takes effect at once, not after the running one. */
    @Test
    void aShorterAuditPeriodTakesEffectAtOnce() throws Exception {
        LinkGroups groups = manager(5);
        sa.loseTraps = true;
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("224.0.0.78"), ETHER, text("early")));
        env.check("absent", () -> counter(groups, "tx_dropped_no_route") == 1);
        sa.addGroup(mgid("224.0.0.78"), other);
        env.advance(10_000);
        env.settings = new McastSettings(64, 1024, 5_000);
        env.run(groups::auditPeriodChanged); // 10 s into the period: the new 5 s period is over already
        env.advance(0);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("224.0.0.78"), ETHER, text("late")));
        env.check("sent", () -> sentTo("224.0.0.78").contains("late"));
        env.settings = new McastSettings(64, 1024, 20_000);
        env.run(groups::auditPeriodChanged);
        sa.removeMember(mgid("224.0.0.78"), other);
        env.advance(19_999);
        assertTrue(link.routes.containsKey(mgid("224.0.0.78")));
        env.advance(1);
        env.check("the longer period holds from the last audit", () -> !link.routes.containsKey(mgid("224.0.0.78")));
    }

    /** A frame dropped because the all-routers group is absent is not counted as sent through it. */
    @Test
    void aFrameDroppedForWantOfAllRoutersIsNotCountedAsSentThroughThem() throws Exception {
        LinkGroups groups = manager(5);
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.13.1"), ETHER, text("nowhere")));
        env.check("dropped", () -> counter(groups, "tx_dropped_no_route") == 1);
        assertEquals(0, counter(groups, "tx_via_all_routers"));
        assertTrue(link.sent.isEmpty());
        sa.addGroup(mgid("224.0.0.2"), other);
        env.settle();
        assertEquals(TransmitResult.QUEUED, groups.send(link, ip("239.1.13.2"), ETHER, text("routed")));
        env.check("sent through all-routers", () -> sentTo("224.0.0.2").contains("routed"));
        assertEquals(1, counter(groups, "tx_via_all_routers"));
    }

    @Test
    void routerModeJoinsEveryIpoibGroupOfTheLinkAsNonMember() throws Exception {
        Mgid otherPartition = MulticastMapping.ipv4(0xEF010801, 0x8001, 2);
        Mgid otherScope = MulticastMapping.ipv4(0xEF010802, 0xffff, 5);
        Mgid notIpoib = Mgid.parse("ff12:1234::1");
        sa.addGroup(mgid("239.1.8.1"), other);
        sa.addGroup(mgid("ff05::8:1"), other);
        sa.addGroup(otherPartition, other);
        sa.addGroup(otherScope, other);
        sa.addGroup(notIpoib, other);
        LinkGroups groups = manager(5);
        env.run(() -> groups.setRouterMode(true));
        env.check("NonMember of the link's groups", () -> sa.membership(mgid("239.1.8.1"), link.gid).contains(JoinState.NON_MEMBER)
                        && sa.membership(mgid("ff05::8:1"), link.gid).contains(JoinState.NON_MEMBER));
        for (Mgid foreign : List.of(otherPartition, otherScope, notIpoib, link.broadcastGid())) {
            assertTrue(sa.membership(foreign, link.gid).isEmpty(), foreign + " is not the link's");
        }
        assertEquals(Boolean.TRUE, link.routes.get(mgid("239.1.8.1")), "a NonMember receives");
        assertEquals(GroupOrigin.ROUTER, info(groups, "239.1.8.1").origin());
        assertEquals(ip("239.1.8.1"), info(groups, "239.1.8.1").group(), "IPv4 groups are recovered from the MGID");

        sa.addGroup(mgid("239.1.8.2"), other);
        env.check("a group created later is joined (wildcard trap 66)", () -> sa.membership(mgid("239.1.8.2"), link.gid).contains(JoinState.NON_MEMBER));

        env.run(() -> groups.setRouterMode(false));
        env.check("router mode off leaves them", () -> sa.membership(mgid("239.1.8.1"), link.gid).isEmpty()
                        && sa.membership(mgid("239.1.8.2"), link.gid).isEmpty());
        assertTrue(sa.exists(mgid("239.1.8.1")), "a NonMember's leave does not delete the group");
    }

    @Test
    void downForgetsJoinsAndUpJoinsTheListenersAgain() throws Exception {
        LinkGroups groups = manager(5);
        joinListener(groups, "239.1.9.1");
        sa.addGroup(mgid("239.1.9.2"), other);
        sa.hold = true;
        groups.send(link, ip("239.1.9.2"), ETHER, text("waiting"));
        link.state = LinkState.DOWN;
        env.run(() -> groups.onLinkChange(link, LinkListener.Change.DOWN));
        assertEquals(1, counter(groups, "tx_dropped_link_down"), "the queued frame is freed and counted");
        assertNull(info(groups, "239.1.9.2"), "send-only groups are forgotten");
        assertNull(info(groups, "239.1.9.1").joinState(), "the listener's join is void");
        assertEquals(TransmitResult.DROPPED_LINK_DOWN, groups.send(link, ip("239.1.9.1"), ETHER, text("down")));
        sa.release();

        link.state = LinkState.UP;
        link.qpn = 0x101;
        int creates = sa.creates.size();
        env.run(() -> groups.onLinkChange(link, LinkListener.Change.UP));
        env.check("the listener's group joined again", () -> info(groups, "239.1.9.1").joinState() == JoinState.FULL_MEMBER);
        assertEquals(creates + 1, sa.creates.size());
    }

    @Test
    void aNewBroadcastGidDerivesEveryMgidAgain() throws Exception {
        LinkGroups groups = manager(5);
        joinListener(groups, "239.1.10.1");
        Mgid before = mgid("239.1.10.1");
        link.state = LinkState.DOWN;
        env.run(() -> groups.onLinkChange(link, LinkListener.Change.DOWN));
        link.pkey = PKey.of(0x8001);
        link.state = LinkState.UP;
        link.qpn = 0x102;
        env.run(() -> groups.onLinkChange(link, LinkListener.Change.UP));
        Mgid after = mgid("239.1.10.1");
        assertEquals("ff12:401b:8001::f01:a01", after.toString());
        env.check("joined under the new MGID", () -> info(groups, "239.1.10.1") != null
                && info(groups, "239.1.10.1").joinState() == JoinState.FULL_MEMBER);
        assertEquals(after, sa.creates.get(sa.creates.size() - 1).mgid());
        assertTrue(env.call(() -> groups.snapshot().stream().noneMatch(g -> g.mgid().equals(before))));
    }

    @Test
    void aMulticastResetJoinsEverythingAndSubscribesAgain() throws Exception {
        LinkGroups groups = manager(5);
        joinListener(groups, "239.1.11.1");
        Mgid m = mgid("239.1.11.1");
        McMemberRecord first = sa.groups().toCompletableFuture().get().stream()
                .filter(r -> r.mgid().equals(m)).findFirst().orElseThrow();
        sa.forgetEverything();
        assertTrue(sa.subscriptions.isEmpty());
        env.run(() -> groups.onLinkChange(link, LinkListener.Change.MULTICAST_RESET));
        env.check("joined again", () -> sa.membership(m, link.gid).contains(JoinState.FULL_MEMBER)
                && info(groups, "239.1.11.1").joinState() == JoinState.FULL_MEMBER);
        assertTrue(!info(groups, "239.1.11.1").mlid().equals(first.mlid()), "the group came back with a new MLID");
        env.check("traps 66 and 67 subscribed again", () -> sa.subscriptions.size() == 2);
    }

    @Test
    void linksOnOnePortShareOneSubscriptionPerTrap() throws Exception {
        LinkGroups a = manager(5);
        FakeLink second = new FakeLink("b", sa, 0x11, 0x200);
        LinkGroups b = env.manager(second, 5);
        env.check("subscribed", () -> sa.subscriptions.size() == 2);
        assertEquals(1, sa.requests.stream().filter(r -> r.equals("subscribe CREATED")).count(),
                "the second link's UP does not subscribe again");
        env.run(a::close);
        assertEquals(2, sa.subscriptions.size(), "b still follows the traps");
        env.run(b::close);
        assertEquals(0, sa.subscriptions.size());
    }

    @Test
    void theScopeOfAnIpGroupDecidesWhetherRoutersGetIt() {
        for (String linkLocal : List.of("224.0.0.1", "224.0.0.251", "ff02::1", "ff01::1", "ff02::1:ff00:1")) {
            assertFalse(Destination.beyondLinkLocal(ip(linkLocal)), linkLocal);
        }
        for (String wider : List.of("224.0.1.1", "239.255.0.1", "232.1.1.1", "ff05::2", "ff08::1", "ff0e::101")) {
            assertTrue(Destination.beyondLinkLocal(ip(wider)), wider);
        }
        Mgid bcast = MulticastMapping.broadcastGid(PKey.DEFAULT);
        assertEquals("ff12:401b:ffff::2", Destination.of(Destination.IPV4_ALL_ROUTERS, bcast).mgid().toString());
        assertEquals("ff12:601b:ffff::2", Destination.of(Destination.IPV6_ALL_ROUTERS, bcast).mgid().toString());
    }
}
