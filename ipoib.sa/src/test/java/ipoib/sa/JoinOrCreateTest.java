package ipoib.sa;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SubnetAdministrator;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * Join-or-create against a scripted SA. The answers are the SA status codes of IBA 15.2.1.2
 * (Table 197: ERR_REQ_INVALID 2, ERR_NO_RECORDS 3, ERR_REQ_INSUFFICIENT_COMPONENTS 6, in bits
 * 8..14 of the MAD status; OpenSM's IB_SA_MAD_STATUS_* in ib_types.h), the templates the values
 * RFC 4391 §4 and Linux's ipoib_mcast_join require.
 */
class JoinOrCreateTest {
    static final Gid SELF = new Gid(0xfe80_0000_0000_0000L, 0x0002_c903_0000_0001L);
    /** RFC 4391 §4.1: ff12:401b:ffff::ffff:ffff is the link-local broadcast-GID of P_Key 0xffff. */
    static final Mgid BROADCAST = Mgid.parse("ff12:401b:ffff::ffff:ffff");
    static final Mgid GROUP = Mgid.parse("ff12:401b:ffff::e001:0203");

    /** An SA that answers each join with the next scripted failure (or success) and records the requests. */
    static final class ScriptedSa implements SubnetAdministrator {
        final List<String> requests = new ArrayList<>();
        final List<McMemberRecord> creates = new ArrayList<>();
        Throwable joinFailure;

        @Override
        public CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state) {
            requests.add("join " + mgid + " " + state.name());
            if (joinFailure != null) {
                return CompletableFuture.failedFuture(joinFailure);
            }
            return CompletableFuture.completedFuture(record(mgid, Lid.of(0xc001)));
        }

        @Override
        public CompletionStage<McMemberRecord> create(McMemberRecord template) {
            requests.add("create " + template.mgid());
            creates.add(template);
            return CompletableFuture.completedFuture(template);
        }

        @Override public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey) { throw new UnsupportedOperationException(); }
        @Override public CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state) { throw new UnsupportedOperationException(); }
        @Override public CompletionStage<Optional<McMemberRecord>> group(Mgid mgid) { throw new UnsupportedOperationException(); }
        @Override public CompletionStage<List<McMemberRecord>> groups() { throw new UnsupportedOperationException(); }
        @Override public CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) { throw new UnsupportedOperationException(); }
    }

    static McMemberRecord record(Mgid mgid, Lid mlid) {
        return new McMemberRecord(mgid, SELF, QKey.of(0x0b1b), mlid, IbMtu.MTU_2048, 0, PKey.of(0xffff),
                Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false);
    }

    final ScriptedSa sa = new ScriptedSa();
    final AtomicInteger templatesAsked = new AtomicInteger();

    McMemberRecord joinOrCreate() {
        return JoinOrCreate.joinOrCreate(sa, BROADCAST, SELF, () -> {
            templatesAsked.incrementAndGet();
            return JoinOrCreate.newBroadcastGroup(BROADCAST, SELF, PKey.of(0x7fff), IbMtu.MTU_4096, Rate.RATE_20_GBPS);
        }, stage -> stage).toCompletableFuture().join();
    }

    @Test
    void anExistingGroupIsJoinedWithoutCreating() {
        McMemberRecord joined = joinOrCreate();
        assertEquals(Lid.of(0xc001), joined.mlid());
        assertEquals(List.of("join " + BROADCAST + " FULL_MEMBER"), sa.requests);
        assertEquals(0, templatesAsked.get(), "the template is only made for a missing group");
    }

    @Test
    void aMissingGroupAnsweredWithInsufficientComponentsIsCreatedWithTheIpoibParameters() {
        sa.joinFailure = new SaException("join", 6 << 8); // OpenSM 3.3: ERR_REQ_INSUFFICIENT_COMPONENTS
        McMemberRecord created = joinOrCreate();
        assertEquals(List.of("join " + BROADCAST + " FULL_MEMBER", "create " + BROADCAST), sa.requests);
        McMemberRecord t = sa.creates.get(0);
        assertEquals(created, t);
        assertEquals(QKey.of(0x0b1b), t.qkey(), "the Q_Key Linux and OpenSM give IPoIB broadcast groups");
        assertEquals(PKey.of(0xffff), t.pkey(), "the broadcast group carries the full-membership P_Key (RFC 4391 §4.1)");
        assertEquals(IbMtu.MTU_4096, t.mtu(), "the port's active MTU");
        assertEquals(Rate.RATE_20_GBPS, t.rate());
        assertEquals(JoinState.FULL_MEMBER, t.joinState(), "only a FullMember may create a group (IBA 15.2.5.17.2)");
        assertEquals(SELF, t.portGid());
    }

    @Test
    void aMissingGroupAnsweredWithNoRecordsIsCreatedToo() {
        sa.joinFailure = new CompletionException(new SaException("join", 3 << 8)); // older SAs: ERR_NO_RECORDS
        joinOrCreate();
        assertEquals(1, sa.creates.size());
    }

    @Test
    void otherFailuresAreTheResultAndCreateNothing() {
        for (Throwable failure : List.of(new SaException("join", 2 << 8), // ERR_REQ_INVALID
                SaException.timeout("join", 3, 1000), SaException.notSent("join", "port down"))) {
            sa.joinFailure = failure;
            CompletionException e = org.junit.jupiter.api.Assertions.assertThrows(CompletionException.class,
                    this::joinOrCreate);
            assertInstanceOf(SaException.class, e.getCause());
            assertFalse(JoinOrCreate.noSuchGroup(failure), String.valueOf(failure));
        }
        assertTrue(sa.creates.isEmpty());
        assertEquals(0, templatesAsked.get());
    }

    /** RFC 4391 §4: "the same P_Key, Q_Key, SL, MTU, and HopLimit"; Linux also copies TClass, rate, flow label. */
    @Test
    void aGroupIsCreatedLikeTheBroadcastGroup() {
        McMemberRecord broadcast = new McMemberRecord(BROADCAST, Gid.ZERO, QKey.of(0x1234), Lid.of(0xc000),
                IbMtu.MTU_1024, 0x20, PKey.of(0x8001), Rate.RATE_5_GBPS, 18, 3, 0x12345, 7, JoinState.FULL_MEMBER, false);
        McMemberRecord t = JoinOrCreate.likeBroadcast(GROUP, SELF, broadcast);
        assertEquals(GROUP, t.mgid());
        assertEquals(SELF, t.portGid());
        assertEquals(QKey.of(0x1234), t.qkey());
        assertEquals(PKey.of(0x8001), t.pkey());
        assertEquals(3, t.serviceLevel());
        assertEquals(IbMtu.MTU_1024, t.mtu());
        assertEquals(7, t.hopLimit());
        assertEquals(0x20, t.trafficClass());
        assertEquals(Rate.RATE_5_GBPS, t.rate());
        assertEquals(0x12345, t.flowLabel());
        assertEquals(Lid.UNASSIGNED, t.mlid(), "the SA assigns the MLID");
        assertEquals(JoinState.FULL_MEMBER, t.joinState());
    }
}
