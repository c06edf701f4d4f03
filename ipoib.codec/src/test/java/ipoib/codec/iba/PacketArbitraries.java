package ipoib.codec.iba;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;

/** Random UD packet descriptions for the property tests. */
final class PacketArbitraries {
    private PacketArbitraries() {}

    private record Routing(int vl, int sl, int dlid, int slid, boolean global, int tclass, int flowLabel, int hopLimit) {}

    private record Gids(long sgidHi, long sgidLo, long dgidHi, long dgidLo) {}

    private record Transport(boolean se, boolean m, int pkey, int destQp, boolean ackReq, int psn, int qkey,
                             int srcQp) {}

    static Arbitrary<IndependentPacket> packets(int maxPayload) {
        Arbitrary<Routing> routing = Combinators.combine(
                Arbitraries.integers().between(0, 15), Arbitraries.integers().between(0, 15),
                Arbitraries.integers().between(0, 0xFFFF), Arbitraries.integers().between(0, 0xFFFF),
                Arbitraries.of(true, false), Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(0, 0xF_FFFF), Arbitraries.integers().between(0, 255)).as(Routing::new);
        Arbitrary<Gids> gids = Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), Arbitraries.longs(),
                Arbitraries.longs()).as(Gids::new);
        Arbitrary<Transport> transport = Combinators.combine(
                Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.integers().between(0, 0xFFFF),
                Arbitraries.integers().between(0, 0xFF_FFFF), Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 0xFF_FFFF), Arbitraries.integers(),
                Arbitraries.integers().between(0, 0xFF_FFFF)).as(Transport::new);
        Arbitrary<byte[]> payload = Arbitraries.bytes().array(byte[].class).ofMinSize(0).ofMaxSize(maxPayload);
        return Combinators.combine(routing, gids, transport, payload).as((r, g, t, p) -> new IndependentPacket(
                r.vl(), r.sl(), r.dlid(), r.slid(), r.global(), r.tclass(), r.flowLabel(), r.hopLimit(), g.sgidHi(),
                g.sgidLo(), g.dgidHi(), g.dgidLo(), t.se(), t.m(), t.pkey(), t.destQp(), t.ackReq(), t.psn(),
                t.qkey(), t.srcQp(), p));
    }
}
