package ipoib.codec.nd;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.codec.DecodeException;
import ipoib.codec.ipoib.Hex;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.Inet6Address;
import java.util.Optional;
import java.util.OptionalLong;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/** Round trips of every ND message type, cross-checked against the reference checksum. */
class NdPropertiesTest {

    @Property(tries = 300)
    void routerSolicitationsRoundTrip(@ForAll("routerSolicitations") RouterSolicitation m,
            @ForAll @IntRange(max = 7) int offset) throws DecodeException {
        assertRoundTrip(m, offset);
    }

    @Property(tries = 300)
    void routerAdvertisementsRoundTrip(@ForAll("routerAdvertisements") RouterAdvertisement m,
            @ForAll @IntRange(max = 7) int offset) throws DecodeException {
        assertRoundTrip(m, offset);
    }

    @Property(tries = 300)
    void neighborSolicitationsRoundTrip(@ForAll("neighborSolicitations") NeighborSolicitation m,
            @ForAll @IntRange(max = 7) int offset) throws DecodeException {
        assertRoundTrip(m, offset);
    }

    @Property(tries = 300)
    void neighborAdvertisementsRoundTrip(@ForAll("neighborAdvertisements") NeighborAdvertisement m,
            @ForAll @IntRange(max = 7) int offset) throws DecodeException {
        assertRoundTrip(m, offset);
    }

    @Property(tries = 300)
    void redirectsRoundTrip(@ForAll("redirects") Redirect m, @ForAll @IntRange(max = 7) int offset)
            throws DecodeException {
        assertRoundTrip(m, offset);
    }

    private static void assertRoundTrip(NdMessage m, int offset) throws DecodeException {
        int length = NdCodec.encodedLength(m);
        MemorySegment buf = Hex.filled(offset + length + 3);
        assertEquals(length, NdCodec.encode(buf, offset, m));
        byte[] packet = buf.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE);
        assertEquals(ReferenceChecksum.of(packet), ((packet[42] & 0xFF) << 8) | (packet[43] & 0xFF));
        assertEquals(255, packet[7] & 0xFF);
        assertEquals(m, NdCodec.decode(buf, offset, length));
    }

    // ---- generators

    static Arbitrary<Inet6Address> anyAddress() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs()).as(Ipv6::of);
    }

    static Arbitrary<Inet6Address> unicast() {
        return Arbitraries.oneOf(linkLocal(), anyAddress().filter(a -> !Ipv6.isMulticast(a) && !Ipv6.isUnspecified(a)));
    }

    static Arbitrary<Inet6Address> linkLocal() {
        return Arbitraries.longs().map(InterfaceIdentifiers::linkLocal);
    }

    static Arbitrary<Inet6Address> multicast() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs())
                .as((h, l) -> Ipv6.of(h | 0xFF00_0000_0000_0000L, l));
    }

    static Arbitrary<Inet6Address> destination() {
        return Arbitraries.oneOf(unicast(), multicast());
    }

    static Arbitrary<Optional<LinkAddress>> linkAddress() {
        Arbitrary<LinkAddress> a = Combinators.combine(Arbitraries.integers().between(0, 255),
                Arbitraries.integers().between(0, Qpn.MAX), Arbitraries.longs(), Arbitraries.longs())
                .as((f, q, p, i) -> new LinkAddress(f, new Qpn(q), new Gid(p, i)));
        return Arbitraries.oneOf(a.map(Optional::of), Arbitraries.just(Optional.empty()));
    }

    static Arbitrary<Long> u32() {
        return Arbitraries.oneOf(Arbitraries.longs().between(0, 0xFFFF_FFFFL), Arbitraries.of(0L, 0xFFFF_FFFFL));
    }

    @Provide
    Arbitrary<RouterSolicitation> routerSolicitations() {
        Arbitrary<RouterSolicitation> fromUnspecified = destination()
                .map(d -> new RouterSolicitation(Ipv6.of(0, 0), d, Optional.empty()));
        Arbitrary<RouterSolicitation> fromAddress = Combinators.combine(unicast(), destination(), linkAddress())
                .as(RouterSolicitation::new);
        return Arbitraries.oneOf(fromUnspecified, fromAddress);
    }

    @Provide
    Arbitrary<RouterAdvertisement> routerAdvertisements() {
        Arbitrary<PrefixInformation> prefix = Combinators.combine(Arbitraries.integers().between(0, 128),
                Arbitraries.of(true, false), Arbitraries.of(true, false), u32(), u32(), anyAddress())
                .as(PrefixInformation::new);
        Arbitrary<OptionalLong> mtu = Arbitraries.oneOf(u32().map(OptionalLong::of), Arbitraries.just(OptionalLong.empty()));
        return Combinators.combine(linkLocal(), destination(), Arbitraries.integers().between(0, 255),
                Arbitraries.of(true, false), Arbitraries.of(true, false), Arbitraries.integers().between(0, 0xFFFF),
                u32(), u32()).flatAs((s, d, hops, m, o, life, reach, retrans) -> Combinators.combine(linkAddress(), mtu,
                        prefix.list().ofMaxSize(4)).as((sll, mt, px) -> new RouterAdvertisement(s, d, hops, m, o, life,
                                reach, retrans, sll, mt, px)));
    }

    @Provide
    Arbitrary<NeighborSolicitation> neighborSolicitations() {
        Arbitrary<NeighborSolicitation> dad = unicast().map(NeighborSolicitation::duplicateAddressDetection);
        Arbitrary<NeighborSolicitation> regular = Combinators.combine(unicast(), destination(), unicast(), linkAddress())
                .as(NeighborSolicitation::new);
        return Arbitraries.oneOf(dad, regular);
    }

    @Provide
    Arbitrary<NeighborAdvertisement> neighborAdvertisements() {
        Arbitrary<NeighborAdvertisement> unsolicited = Combinators.combine(unicast(), destination(),
                Arbitraries.of(true, false), Arbitraries.of(true, false), unicast(), linkAddress())
                .as((s, d, r, o, t, l) -> new NeighborAdvertisement(s, d, r, false, o, t, l));
        Arbitrary<NeighborAdvertisement> solicited = Combinators.combine(unicast(), unicast(),
                Arbitraries.of(true, false), Arbitraries.of(true, false), unicast(), linkAddress())
                .as((s, d, r, o, t, l) -> new NeighborAdvertisement(s, d, r, true, o, t, l));
        return Arbitraries.oneOf(unsolicited, solicited);
    }

    @Provide
    Arbitrary<Redirect> redirects() {
        Arbitrary<Redirect> viaRouter = Combinators.combine(linkLocal(), unicast(), linkLocal(), unicast(), linkAddress())
                .as(Redirect::new);
        Arbitrary<Redirect> toNeighbour = Combinators.combine(linkLocal(), unicast(), unicast(), linkAddress())
                .as((s, d, t, l) -> new Redirect(s, d, t, t, l));
        return Arbitraries.oneOf(viaRouter, toNeighbour);
    }
}
