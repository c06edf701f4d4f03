package ipoib.api;

import static org.junit.jupiter.api.Assertions.assertEquals;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;
import java.net.InetAddress;

/** Text and byte forms of every value type round-trip. */
class RoundTripTest {

    @Provide
    Arbitrary<Gid> gids() {
        // Bias towards zero groups so that '::' compression is exercised.
        Arbitrary<Long> half = Arbitraries.oneOf(
                Arbitraries.longs(),
                Arbitraries.longs().map(v -> v & 0xFFFF_0000_0000_FFFFL),
                Arbitraries.of(0L, 1L, 0xfe80_0000_0000_0000L));
        return Combinators.combine(half, half).as(Gid::new);
    }

    @Property(tries = 500)
    void gidText(@ForAll("gids") Gid gid) {
        assertEquals(gid, Gid.parse(gid.toString()));
        assertEquals(gid, Gid.parse(gid.toString().toUpperCase()));
    }

    @Property(tries = 300)
    void gidTextMatchesTheJdksIpv6Reading(@ForAll("gids") Gid gid) throws Exception {
        // An independent reader of IPv6 text: the JDK's literal parser (no name lookup for literals).
        byte[] jdk = InetAddress.getByName(gid.toString()).getAddress();
        assertEquals(gid, Gid.fromBytes(jdk));
    }

    @Property(tries = 300)
    void gidBytes(@ForAll("gids") Gid gid) {
        assertEquals(gid, Gid.fromBytes(gid.toBytes()));
    }

    @Property(tries = 300)
    void guidText(@ForAll long value) {
        Guid guid = Guid.of(value);
        assertEquals(guid, Guid.parse(guid.toString()));
        assertEquals(guid, Guid.parse(String.format("0x%016x", value)));
    }

    @Property(tries = 300)
    void qpnText(@ForAll @IntRange(min = 0, max = 0xFFFFFF) int value) {
        assertEquals(Qpn.of(value), Qpn.parse(Qpn.of(value).toString()));
        assertEquals(Qpn.of(value), Qpn.parse(Integer.toString(value)));
    }

    @Property(tries = 300)
    void lidText(@ForAll @IntRange(min = 0, max = 0xFFFF) int value) {
        assertEquals(Lid.of(value), Lid.parse(Lid.of(value).toString()));
    }

    @Property(tries = 300)
    void pkeyText(@ForAll @IntRange(min = 0, max = 0xFFFF) int value) {
        if ((value & 0x7FFF) == 0) {
            return;
        }
        PKey pkey = PKey.of(value);
        assertEquals(pkey, PKey.parse(pkey.toString()));
        assertEquals(pkey.base(), pkey.asFullMember().base());
    }

    @Property(tries = 300)
    void qkeyText(@ForAll int value) {
        assertEquals(QKey.of(value), QKey.parse(QKey.of(value).toString()));
    }

    @Property(tries = 500)
    void linkAddressTextAndBytes(@ForAll @IntRange(min = 0, max = 255) int flags,
                                 @ForAll @IntRange(min = 0, max = 0xFFFFFF) int qpn, @ForAll("gids") Gid gid) {
        LinkAddress address = new LinkAddress(flags, Qpn.of(qpn), gid);
        assertEquals(address, LinkAddress.parse(address.toString()));
        assertEquals(address, LinkAddress.fromBytes(address.toBytes(), 0));
    }

    @Property(tries = 50)
    void mtuText(@ForAll IbMtu mtu) {
        assertEquals(mtu, IbMtu.parse(mtu.toString()));
        assertEquals(mtu, IbMtu.fromCode(mtu.code()));
    }

    @Property(tries = 50)
    void joinStateText(@ForAll JoinState state) {
        assertEquals(state, JoinState.parse(state.toString()));
        assertEquals(state, JoinState.fromBit(state.bit()));
    }
}
