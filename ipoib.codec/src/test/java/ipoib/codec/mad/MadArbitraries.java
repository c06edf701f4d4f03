package ipoib.codec.mad;

import ipoib.api.Gid;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random records covering every field's whole range. */
final class MadArbitraries {
    private MadArbitraries() {}

    static Arbitrary<Gid> gids() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Gid::new);
    }

    static Arbitrary<Integer> bits(int n) {
        return Arbitraries.integers().between(0, (1 << n) - 1);
    }

    static Arbitrary<Selector> selectors() {
        return Arbitraries.of(Selector.class);
    }

    static Arbitrary<MadHeader> madHeaders() {
        return Combinators.combine(bits(8), bits(8), bits(8), bits(8), bits(16), bits(16), Arbitraries.longs(),
                Combinators.combine(bits(16), Arbitraries.integers()).as((a, m) -> new int[] {a, m}))
                .as((base, cls, ver, method, status, spec, tid, am) ->
                        new MadHeader(base, cls, ver, method, status, spec, tid, am[0], am[1]));
    }

    static Arbitrary<RmppHeader> rmppHeaders() {
        return Combinators.combine(bits(8), bits(8), bits(5), bits(3), bits(8), Arbitraries.integers(),
                Arbitraries.integers()).as(RmppHeader::new);
    }

    static Arbitrary<SaHeader> saHeaders() {
        return Combinators.combine(Arbitraries.longs(), bits(16), Arbitraries.longs()).as(SaHeader::new);
    }

    private record PathA(long serviceId, Gid dgid, Gid sgid, int dlid, int slid, boolean raw, int flow, int hop) {}

    private record PathB(int tclass, boolean reversible, int numb, int pkey, int qos, int sl, Selector mtuSel,
                         int mtu) {}

    private record PathC(Selector rateSel, int rate, Selector lifeSel, int life, int preference) {}

    static Arbitrary<SaPathRecord> pathRecords() {
        Arbitrary<PathA> a = Combinators.combine(Arbitraries.longs(), gids(), gids(), bits(16), bits(16),
                Arbitraries.of(true, false), bits(20), bits(8)).as(PathA::new);
        Arbitrary<PathB> b = Combinators.combine(bits(8), Arbitraries.of(true, false), bits(7), bits(16), bits(12),
                bits(4), selectors(), bits(6)).as(PathB::new);
        Arbitrary<PathC> c = Combinators.combine(selectors(), bits(6), selectors(), bits(6), bits(8)).as(PathC::new);
        return Combinators.combine(a, b, c).as((x, y, z) -> new SaPathRecord(x.serviceId(), x.dgid(), x.sgid(),
                x.dlid(), x.slid(), x.raw(), x.flow(), x.hop(), y.tclass(), y.reversible(), y.numb(), y.pkey(),
                y.qos(), y.sl(), y.mtuSel(), y.mtu(), z.rateSel(), z.rate(), z.lifeSel(), z.life(), z.preference()));
    }

    private record MemberA(Gid mgid, Gid port, int qkey, int mlid, Selector mtuSel, int mtu, int tclass, int pkey) {}

    private record MemberB(Selector rateSel, int rate, Selector lifeSel, int life, int sl, int flow, int hop,
                           int scope) {}

    static Arbitrary<SaMcMemberRecord> memberRecords() {
        Arbitrary<MemberA> a = Combinators.combine(gids(), gids(), Arbitraries.integers(), bits(16), selectors(),
                bits(6), bits(8), bits(16)).as(MemberA::new);
        Arbitrary<MemberB> b = Combinators.combine(selectors(), bits(6), selectors(), bits(6), bits(4), bits(20),
                bits(8), bits(4)).as(MemberB::new);
        return Combinators.combine(a, b, bits(4), Arbitraries.of(true, false)).as((x, y, state, proxy) ->
                new SaMcMemberRecord(x.mgid(), x.port(), x.qkey(), x.mlid(), x.mtuSel(), x.mtu(), x.tclass(),
                        x.pkey(), y.rateSel(), y.rate(), y.lifeSel(), y.life(), y.sl(), y.flow(), y.hop(), y.scope(),
                        state, proxy));
    }

    static Arbitrary<InformInfo> informInfos() {
        return Combinators.combine(gids(), bits(16), bits(16), Arbitraries.of(true, false), Arbitraries.of(true, false),
                bits(16), bits(16), Combinators.combine(bits(24), bits(5), bits(24)).as((q, r, p) -> new int[] {q, r, p}))
                .as((gid, begin, end, generic, subscribe, type, trap, qrp) ->
                        new InformInfo(gid, begin, end, generic, subscribe, type, trap, qrp[0], qrp[1], qrp[2]));
    }

    static Arbitrary<Notice> notices() {
        return Combinators.combine(Arbitraries.of(true, false), bits(7), bits(24), bits(16), bits(16),
                Arbitraries.of(true, false), bits(15),
                Combinators.combine(Arbitraries.bytes().array(byte[].class).ofSize(Notice.DATA_DETAILS_LENGTH), gids())
                        .as((d, g) -> new Object[] {d, g}))
                .as((generic, type, producer, trap, lid, toggle, count, dg) -> new Notice(generic, type, producer, trap,
                        lid, toggle, count, (byte[]) dg[0], (Gid) dg[1]));
    }
}
