package ipoib.mcast.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.sa.SaCapabilities;
import ipoib.codec.mcast.MulticastMapping;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Send-only joins as Linux makes them: SendOnlyFullMember, which creates the
 * group, when the SA's ClassPortInfo advertises it (CapabilityMask2 bit 12, which OpenSM 3.3.23
 * sets: osm_sa_class_port_info.c:168); SendOnlyNonMember otherwise; and an unused send-only
 * membership left after the idle time, as Linux reaps its send-only groups.
 */
class SendOnlyFullMemberTest {
    private static final int ETHER = 0x86DD;
    /** OpenSM 3.3.23's default CapabilityMask2 (osm_sa_class_port_info.c:162-175, use_mfttop on, qos off). */
    private static final SaCapabilities OPENSM = new SaCapabilities(0x2202, 0xB5E8, 16);

    private final TestEnvironment env = new TestEnvironment();
    private final FakeSa sa = new FakeSa();
    private final FakeLink link = new FakeLink("a", sa, 0x11, 0x100);
    private final Gid other = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x22);

    @AfterEach
    void stop() {
        env.close();
    }

    private Mgid mgid(String group) {
        InetAddress a = InetAddress.ofLiteral(group);
        return a instanceof Inet4Address v4 ? MulticastMapping.ipv4(v4, link.broadcastGid())
                : MulticastMapping.ipv6((Inet6Address) a, link.broadcastGid());
    }

    private TransmitResult send(LinkGroups groups, String group, String text) {
        return groups.send(link, InetAddress.ofLiteral(group), ETHER,
                MemorySegment.ofArray(text.getBytes(StandardCharsets.US_ASCII)));
    }

    private List<String> sentTo(String group) {
        Mgid m = mgid(group);
        return link.sent.stream().filter(s -> s.group().equals(m)).map(FakeLink.Sent::text).toList();
    }

    private long counter(LinkGroups groups, String name) {
        return groups.counters().snapshot().get(name);
    }

    @Test
    void aRouterSolicitationToAnAbsentAllRoutersGroupCreatesItAsSendOnlyFullMember() {
        sa.capabilities = OPENSM;
        LinkGroups groups = env.manager(link, 5);
        env.settle();
        assertEquals(TransmitResult.QUEUED, send(groups, "ff02::2", "router solicitation"));
        env.check("the solicitation went out", () -> sentTo("ff02::2").equals(List.of("router solicitation")),
                () -> sa.requests.toString());
        assertEquals(Set.of(JoinState.SEND_ONLY_FULL_MEMBER), sa.membership(mgid("ff02::2"), link.gid));
        assertTrue(sa.exists(mgid("ff02::2")), "the send-only join created the group");
        McMemberRecord template = sa.creates.get(sa.creates.size() - 1);
        McMemberRecord broadcast = sa.broadcastRecord(link.broadcastGid());
        assertEquals(JoinState.SEND_ONLY_FULL_MEMBER, template.joinState());
        assertEquals(broadcast.qkey(), template.qkey(), "the create components are the broadcast group's");
        assertEquals(broadcast.serviceLevel(), template.serviceLevel());
        assertEquals(broadcast.flowLabel(), template.flowLabel());
        assertEquals(broadcast.trafficClass(), template.trafficClass());
        assertEquals(Boolean.FALSE, link.routes.get(mgid("ff02::2")), "a send-only member does not receive");
        assertEquals(TransmitResult.SENT, send(groups, "ff02::2", "again"), "the member path");
    }

    @Test
    void anSaWithoutTheCapabilityGetsSendOnlyNonMemberAndAnAbsentLinkLocalGroupIsDropped() {
        sa.capabilities = new SaCapabilities(OPENSM.capabilityMask(), OPENSM.capabilityMask2()
                & ~SaCapabilities.SEND_ONLY_FULL_MEMBER, 16);
        LinkGroups groups = env.manager(link, 5);
        env.settle();
        send(groups, "ff02::2", "nobody hears this");
        env.check("the absent group was asked for and the frame dropped",
                () -> counter(groups, "tx_dropped_no_route") == 1, () -> sa.requests.toString());
        assertTrue(sa.requests.contains("join " + mgid("ff02::2") + " SendOnlyNonMember"), sa.requests.toString());
        assertFalse(sa.exists(mgid("ff02::2")));
        assertEquals(List.of(), sentTo("ff02::2"));
    }

    @Test
    void anSaThatDoesNotAnswerClassPortInfoGetsSendOnlyNonMember() {
        LinkGroups groups = env.manager(link, 5); // FakeSa without capabilities: METHOD_ATTRIBUTE_NOT_SUPPORTED
        sa.addGroup(mgid("239.2.0.1"), other);
        env.settle();
        send(groups, "239.2.0.1", "to an existing group");
        env.check("sent after a SendOnlyNonMember join", () -> sentTo("239.2.0.1").size() == 1);
        assertEquals(Set.of(JoinState.SEND_ONLY_NON_MEMBER), sa.membership(mgid("239.2.0.1"), link.gid));
    }

    @Test
    void sendOnlyJoinsWaitForTheClassPortInfoAnswer() {
        sa.capabilities = OPENSM;
        sa.hold = true;
        LinkGroups groups = env.manager(link, 5);
        env.settle();
        assertEquals(TransmitResult.QUEUED, send(groups, "ff02::2", "waits"));
        env.settle();
        assertTrue(sa.requests.contains("capabilities"), sa.requests.toString());
        assertTrue(sa.requests.stream().noneMatch(r -> r.contains(mgid("ff02::2").toString())),
                "no send-only join before the SA said which: " + sa.requests);
        sa.hold = false;
        sa.release();
        env.check("the frame went out after a SendOnlyFullMember join", () -> sentTo("ff02::2").size() == 1,
                () -> sa.requests.toString());
        assertEquals(Set.of(JoinState.SEND_ONLY_FULL_MEMBER), sa.membership(mgid("ff02::2"), link.gid));
    }

    @Test
    void theEgressDecisionForAnAbsentGroupIsToJoinWhenTheJoinCreatesIt() throws Exception {
        sa.capabilities = OPENSM;
        LinkGroups groups = env.manager(link, 5);
        env.settle();
        assertEquals(EgressDecision.JOIN_SEND_ONLY_THEN_SEND, env.call(() -> groups.decide(
                InetAddress.ofLiteral("239.2.0.2"))).get(10, TimeUnit.SECONDS));
    }

    @Test
    void anUnusedSendOnlyFullMembershipIsLeftAfterTheIdleTimeAndTheGroupGoesWithIt() {
        sa.capabilities = OPENSM;
        LinkGroups groups = env.manager(link, 5);
        env.settle();
        send(groups, "239.2.0.3", "first");
        env.check("joined and sent", () -> sentTo("239.2.0.3").size() == 1);
        long idle = env.settings.sendOnlyIdleMillis();
        assertEquals(60_000, idle, "Linux: two neighbour GC periods of 30 s");
        for (int i = 0; i < 4; i++) {
            env.advance(idle / 2);
            send(groups, "239.2.0.3", "keeps it " + i);
        }
        env.settle();
        assertEquals(Set.of(JoinState.SEND_ONLY_FULL_MEMBER), sa.membership(mgid("239.2.0.3"), link.gid),
                "a membership in use stays");
        env.advance(idle / 2); // the sweep that sees the last frame
        env.advance(idle / 2);
        env.check("still a member after one quiet sweep", () -> sa.exists(mgid("239.2.0.3")));
        env.advance(idle / 2);
        env.check("left after two quiet sweeps", () -> !sa.exists(mgid("239.2.0.3")), () -> sa.requests.toString());
        assertTrue(sa.requests.contains("leave " + mgid("239.2.0.3") + " SendOnlyFullMember"));
        assertEquals(1, counter(groups, "send_only_idle_leaves"));
        assertFalse(link.routes.containsKey(mgid("239.2.0.3")), "the link's route is gone");

        assertEquals(TransmitResult.QUEUED, send(groups, "239.2.0.3", "later"), "the next frame joins again");
        env.check("joined again", () -> sentTo("239.2.0.3").contains("later"));
        assertTrue(sa.exists(mgid("239.2.0.3")));
    }

    @Test
    void aListenerMembershipIsNeverLeftForIdleness() throws Exception {
        sa.capabilities = OPENSM;
        LinkGroups groups = env.manager(link, 5);
        env.call(() -> groups.joinListener(InetAddress.ofLiteral("239.2.0.4"))).get(10, TimeUnit.SECONDS);
        env.advance(3 * env.settings.sendOnlyIdleMillis());
        env.settle();
        assertEquals(Set.of(JoinState.FULL_MEMBER), sa.membership(mgid("239.2.0.4"), link.gid));
        assertEquals(0, counter(groups, "send_only_idle_leaves"));
    }
}
