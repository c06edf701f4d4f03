package ipoib.codec.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
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
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class ApiConversionTest {
    private static final Gid PORT = Gid.parse("fe80::2:c903:0:1");
    private static final Mgid BROADCAST = Mgid.parse("ff12:401b:ffff::ffff:ffff");

    private record Common(int flow, int sl, int life, int hop, int tclass) {}

    private static Arbitrary<Common> common() {
        return Combinators.combine(MadArbitraries.bits(20), MadArbitraries.bits(4), MadArbitraries.bits(6),
                MadArbitraries.bits(8), MadArbitraries.bits(8)).as(Common::new);
    }

    private static Arbitrary<PKey> pkeys() {
        return Arbitraries.integers().between(1, 0xFFFF).filter(v -> (v & 0x7FFF) != 0).map(PKey::of);
    }

    @Provide
    Arbitrary<PathRecord> apiPaths() {
        return Combinators.combine(MadArbitraries.gids(), MadArbitraries.gids(), MadArbitraries.bits(16),
                MadArbitraries.bits(16), pkeys(), Arbitraries.of(IbMtu.class), Arbitraries.of(Rate.class), common())
                .as((d, s, dl, sl, pkey, mtu, rate, c) -> new PathRecord(d, s, Lid.of(dl), Lid.of(sl), c.flow(), pkey,
                        c.sl(), mtu, rate, c.life(), c.hop(), c.tclass()));
    }

    @Property(tries = 300)
    void pathRecordsSurviveTheWire(@ForAll("apiPaths") PathRecord path) throws DecodeException {
        SaPathRecord wire = SaPathRecord.fromApi(path);
        assertEquals(Selector.EXACTLY, wire.mtuSelector());
        byte[] out = new byte[SaPathRecord.LENGTH];
        wire.encode(MemorySegment.ofArray(out), 0);
        assertEquals(path, SaPathRecord.decode(MemorySegment.ofArray(out), 0).toApi());
    }

    @Provide
    Arbitrary<McMemberRecord> apiMembers() {
        Arbitrary<Mgid> mgids = Arbitraries.longs().map(l -> Mgid.of(0xFF00_0000_0000_0000L | (l & 0x00FF_FFFF_FFFF_FFFFL),
                l * 31));
        return Combinators.combine(mgids, MadArbitraries.gids(), Arbitraries.integers().map(QKey::of),
                MadArbitraries.bits(16).map(Lid::of), Arbitraries.of(IbMtu.class), pkeys(), Arbitraries.of(Rate.class),
                Combinators.combine(common(), Arbitraries.of(JoinState.class), Arbitraries.of(true, false))
                        .as((c, s, p) -> new Object[] {c, s, p}))
                .as((mgid, port, qkey, mlid, mtu, pkey, rate, rest) -> {
                    Common c = (Common) rest[0];
                    return new McMemberRecord(mgid, port, qkey, mlid, mtu, c.tclass(), pkey, rate, c.life(), c.sl(),
                            c.flow(), c.hop(), (JoinState) rest[1], (Boolean) rest[2]);
                });
    }

    @Property(tries = 300)
    void memberRecordsSurviveTheWire(@ForAll("apiMembers") McMemberRecord member) throws DecodeException {
        SaMcMemberRecord wire = SaMcMemberRecord.fromApi(member);
        assertEquals(member.scope(), wire.scope());
        byte[] out = new byte[SaMcMemberRecord.LENGTH];
        wire.encode(MemorySegment.ofArray(out), 0);
        assertEquals(member, SaMcMemberRecord.decode(MemorySegment.ofArray(out), 0).toApi());
    }

    @Test
    void valuesWithoutApiEquivalentAreNamed() {
        SaPathRecord path = SaPathRecord.fromApi(new PathRecord(PORT, PORT, Lid.of(1), Lid.of(2), 0, PKey.DEFAULT, 0,
                IbMtu.MTU_2048, Rate.RATE_10_GBPS, 0, 0, 0));
        assertConversionFails(() -> withPathPkey(path, 0x8000).toApi(), "PathRecord P_Key", 50);
        assertConversionFails(() -> withPathMtu(path, 6).toApi(), "PathRecord MTU", 54);
        assertConversionFails(() -> withPathRate(path, 1).toApi(), "PathRecord Rate", 55);

        SaMcMemberRecord member = SaMcMemberRecord.fromApi(new McMemberRecord(BROADCAST, PORT, QKey.of(0x0b1b),
                Lid.of(0xc000), IbMtu.MTU_2048, 0, PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER,
                false));
        assertConversionFails(() -> withMember(member, PORT, member.mtu(), member.pkey(), member.rate(), 1).toApi(),
                "MCMemberRecord MGID", 0);
        assertConversionFails(() -> withMember(member, member.mgid(), 0, member.pkey(), member.rate(), 1).toApi(),
                "MCMemberRecord MTU", 38);
        assertConversionFails(() -> withMember(member, member.mgid(), 4, 0, member.rate(), 1).toApi(),
                "MCMemberRecord P_Key", 40);
        assertConversionFails(() -> withMember(member, member.mgid(), 4, 0xffff, 63, 1).toApi(),
                "MCMemberRecord Rate", 42);
        assertConversionFails(() -> withMember(member, member.mgid(), 4, 0xffff, 3, 0x3).toApi(),
                "MCMemberRecord JoinState", 48);
        // 0x8 is SendOnlyFullMember and 0x0 the untrusted table view (API 1.1); two bits at once are not one state.
        assertConversionFails(() -> withMember(member, member.mgid(), 4, 0xffff, 3, 0x9).toApi(),
                "MCMemberRecord JoinState", 48);
    }

    private interface Conversion {
        Object run() throws DecodeException;
    }

    private static void assertConversionFails(Conversion conversion, String field, long offset) {
        DecodeException e = assertThrows(DecodeException.class, conversion::run);
        assertEquals(field, e.field(), e.getMessage());
        assertEquals(offset, e.offset());
    }

    private static SaPathRecord withPathPkey(SaPathRecord p, int pkey) {
        return new SaPathRecord(p.serviceId(), p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(),
                p.rawTraffic(), p.flowLabel(), p.hopLimit(), p.trafficClass(), p.reversible(), p.numberOfPaths(), pkey,
                p.qosClass(), p.serviceLevel(), p.mtuSelector(), p.mtu(), p.rateSelector(), p.rate(),
                p.packetLifeTimeSelector(), p.packetLifeTime(), p.preference());
    }

    private static SaPathRecord withPathMtu(SaPathRecord p, int mtu) {
        return new SaPathRecord(p.serviceId(), p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(),
                p.rawTraffic(), p.flowLabel(), p.hopLimit(), p.trafficClass(), p.reversible(), p.numberOfPaths(),
                p.pkey(), p.qosClass(), p.serviceLevel(), p.mtuSelector(), mtu, p.rateSelector(), p.rate(),
                p.packetLifeTimeSelector(), p.packetLifeTime(), p.preference());
    }

    private static SaPathRecord withPathRate(SaPathRecord p, int rate) {
        return new SaPathRecord(p.serviceId(), p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(),
                p.rawTraffic(), p.flowLabel(), p.hopLimit(), p.trafficClass(), p.reversible(), p.numberOfPaths(),
                p.pkey(), p.qosClass(), p.serviceLevel(), p.mtuSelector(), p.mtu(), p.rateSelector(), rate,
                p.packetLifeTimeSelector(), p.packetLifeTime(), p.preference());
    }

    private static SaMcMemberRecord withMember(SaMcMemberRecord m, Gid mgid, int mtu, int pkey, int rate, int state) {
        return new SaMcMemberRecord(mgid, m.portGid(), m.qkey(), m.mlid(), m.mtuSelector(), mtu, m.trafficClass(), pkey,
                m.rateSelector(), rate, m.packetLifeTimeSelector(), m.packetLifeTime(), m.serviceLevel(), m.flowLabel(),
                m.hopLimit(), m.scope(), state, m.proxyJoin());
    }

    @Test
    void requestTemplates() {
        SaPathRecord query = SaPathRecord.query(PORT, Gid.parse("fe80::2:c903:0:2"), 0xffff);
        assertEquals(PORT, query.sourceGid());
        assertTrue(query.reversible());
        assertEquals(1, query.numberOfPaths());
        assertEquals(0b11_0000_0000_1100L, SaPathRecord.QUERY_COMPONENTS);

        SaMcMemberRecord join = SaMcMemberRecord.join(BROADCAST, PORT, JoinState.SEND_ONLY_NON_MEMBER);
        assertEquals(BROADCAST.gid(), join.mgid());
        assertEquals(0x4, join.joinState());
        assertEquals(0x10003L, SaMcMemberRecord.JOIN_COMPONENTS);
        // MGID, PortGID, Q_Key, MTUSelector, MTU, TClass, P_Key, RateSelector, Rate, SL, FlowLabel, HopLimit, JoinState
        assertEquals(0x173F7L, SaMcMemberRecord.CREATE_COMPONENTS);
    }

    @Test
    void groupTrapsSurviveTheWire() throws DecodeException {
        Gid sm = Gid.parse("fe80::2:c903:0:99");
        for (GroupTrap.Type type : GroupTrap.Type.values()) {
            Notice notice = Notice.forGroupTrap(type, BROADCAST, 1, sm);
            byte[] out = new byte[Notice.LENGTH];
            notice.encode(MemorySegment.ofArray(out), 0);
            Notice back = Notice.decode(MemorySegment.ofArray(out), 0);
            assertEquals((byte) 0x83, out[0], "generic, subnet management (as OpenSM sends group traps)");
            assertEquals(new GroupTrap(type, BROADCAST, BROADCAST.gid()), back.toGroupTrap());
            assertEquals(sm, back.issuerGid());

            InformInfo subscription = InformInfo.forGroupTrap(type, BROADCAST, true, 1);
            assertEquals(type.trapNumber(), subscription.trapNumberOrDeviceId());
            assertEquals(BROADCAST.gid(), subscription.gid());
            assertEquals(InformInfo.ALL_TYPES, subscription.type());
            InformInfo all = InformInfo.forGroupTrap(type, null, false, 1);
            assertEquals(Gid.ZERO, all.gid());
            assertEquals(InformInfo.ALL_LIDS, all.lidRangeBegin());
        }
    }

    @Test
    void noticesThatAreNoGroupTrapsAreNamed() {
        byte[] details = new byte[Notice.DATA_DETAILS_LENGTH];
        System.arraycopy(BROADCAST.gid().toBytes(), 0, details, 6, 16);
        assertConversionFails(() -> new Notice(false, 3, 4, 66, 1, false, 0, details, PORT).toGroupTrap(),
                "Notice IsGeneric", 0);
        assertConversionFails(() -> new Notice(true, 3, 4, 64, 1, false, 0, details, PORT).toGroupTrap(),
                "Notice TrapNumber", 4);
        assertConversionFails(() -> new Notice(true, 3, 4, 66, 1, false, 0, new byte[54], PORT).toGroupTrap(),
                "Notice DataDetails GID", 16);
    }
}
