package ipoib.codec.mcast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.codec.mcast.MulticastMapping.Family;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Arrays;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;
import org.junit.jupiter.api.Test;

class MulticastMappingTest {

    private static Inet4Address v4(String s) {
        try {
            return (Inet4Address) InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    private static Inet6Address v6(String s) {
        try {
            return (Inet6Address) InetAddress.getByName(s);
        } catch (java.net.UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    // ---- known answers from RFC 4391 §4

    // §4: "on an IPoIB link ... with a P_Key of 0x8000, the MGIDs for the all-router multicast group
    // with group ID 2 are FF12:401B:8000::2 (IPv4) and FF12:601B:8000::2 (IPv6)". All-routers is
    // 224.0.0.2 and ff02::2; scope 2. P_Key 0x8000 has a zero base, which a PKey refuses, so the
    // raw-int overloads carry the text's value.
    @Test
    void allRoutersExampleOfSection4() {
        assertEquals(Mgid.parse("FF12:401B:8000::2"), MulticastMapping.ipv4(0xE000_0002, 0x8000, 2));
        assertEquals(Mgid.parse("FF12:601B:8000::2"), MulticastMapping.ipv6(v6("ff02::2").getAddress(), 0x8000, 2));
    }

    // Linux's ip_ib_mc_map and ipv6_ib_mc_map (include/net/ip.h, include/net/if_inet6.h) copy
    // octets 8-9 of the broadcast address as they are: a broadcast-GID with a limited P_Key maps
    // groups under that limited P_Key, not under the full-member one.
    @Test
    void aSuppliedBroadcastGidLendsItsPKeyOctetsAsTheyAre() {
        Mgid limited = Mgid.parse("ff12:401b:0001::ffff:ffff");
        assertEquals(Mgid.parse("ff12:401b:0001::1"), MulticastMapping.ipv4(v4("224.0.0.1"), limited));
        assertEquals(Mgid.parse("ff12:601b:0001::1"), MulticastMapping.ipv6(v6("ff02::1"), limited));
        assertEquals(limited, MulticastMapping.ipv4(v4("255.255.255.255"), limited));
        Mgid full = Mgid.parse("ff15:401b:8001::ffff:ffff");
        assertEquals(Mgid.parse("ff15:401b:8001::102"), MulticastMapping.ipv4(v4("224.0.1.2"), full));
    }

    // §4 Figure 2: ff, flags 0001, scope, 0100000000011011 (0x401B), P_Key, 48 zero bits, 32 one bits.
    @Test
    void broadcastGidOfFigure2() {
        Mgid expected = Mgid.parse("ff12:401b:ffff:0000:0000:0000:ffff:ffff");
        assertEquals(expected, MulticastMapping.broadcastGid(PKey.DEFAULT));
        assertEquals(expected, MulticastMapping.broadcastGid(0xFFFF, 2));
        assertEquals(Mgid.parse("ff15:401b:8001::ffff:ffff"), MulticastMapping.broadcastGid(new PKey(0x8001), 5));
    }

    // §4: 255.255.255.255 SHALL be mapped to the broadcast-GID.
    @Test
    void limitedBroadcastMapsToTheBroadcastGid() {
        assertEquals(MulticastMapping.broadcastGid(PKey.DEFAULT), MulticastMapping.ipv4(v4("255.255.255.255"), PKey.DEFAULT, 2));
        assertEquals(v4("255.255.255.255"), MulticastMapping.ipv4Group(MulticastMapping.broadcastGid(PKey.DEFAULT)));
    }

    // §4.1: a full-membership P_Key is used, so a limited member's P_Key gets the high bit.
    @Test
    void pKeyCarriesTheFullMembershipBit() {
        assertEquals(Mgid.parse("ff12:401b:ffff::1"), MulticastMapping.ipv4(v4("224.0.0.1"), new PKey(0x7FFF), 2));
        assertEquals(0xFFFF, MulticastMapping.pKey(MulticastMapping.broadcastGid(new PKey(0x7FFF))));
    }

    // §4: the IPv4 group's low 28 bits go to the low 28 bits, every other group-ID bit is zero.
    @Test
    void ipv4GroupOccupiesTheLow28Bits() {
        assertEquals(Mgid.parse("ff12:401b:ffff::fff:ffff"), MulticastMapping.ipv4(v4("239.255.255.255"), PKey.DEFAULT, 2));
        assertEquals(Mgid.parse("ff12:401b:ffff::1:203"), MulticastMapping.ipv4(v4("224.1.2.3"), PKey.DEFAULT, 2));
        assertEquals(Mgid.parse("ff12:401b:ffff::a01:203"), MulticastMapping.ipv4(v4("234.1.2.3"), PKey.DEFAULT, 2));
    }

    // §4: the IPv6 group's low 80 bits go to the low 80 bits; the scope is the broadcast-GID's, not the group's.
    @Test
    void ipv6GroupOccupiesTheLow80BitsAndScopeComesFromTheLink() {
        assertEquals(Mgid.parse("ff12:601b:ffff::1:3"), MulticastMapping.ipv6(v6("ff05::1:3"), PKey.DEFAULT, 2));
        assertEquals(Mgid.parse("ff12:601b:ffff:9abc:def0:1122:3344:5566"),
                MulticastMapping.ipv6(v6("ff0e:1234:5678:9abc:def0:1122:3344:5566"), PKey.DEFAULT, 2));
        assertEquals(Mgid.parse("ff12:601b:ffff::1:ff00:2"), MulticastMapping.ipv6(v6("ff02::1:ff00:2"), PKey.DEFAULT, 2));
    }

    // §4: "All MGIDs used in the IPoIB subnet MUST use the same scop bits as in the corresponding broadcast-GID."
    @Test
    void groupsTakeScopeAndPKeyFromTheBroadcastGid() {
        Mgid broadcast = MulticastMapping.broadcastGid(new PKey(0x8123), 5);
        assertEquals(Mgid.parse("ff15:401b:8123::2"), MulticastMapping.ipv4(v4("224.0.0.2"), broadcast));
        assertEquals(Mgid.parse("ff15:601b:8123::2"), MulticastMapping.ipv6(v6("ff02::2"), broadcast));
    }

    // ---- refusals

    @Test
    void unicastAddressesHaveNoMgid() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> MulticastMapping.ipv4(v4("10.0.0.1"), PKey.DEFAULT, 2));
        assertTrue(e.getMessage().contains("10.0.0.1"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4(v4("240.0.0.1"), PKey.DEFAULT, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4(0xDFFF_FFFF, 0xFFFF, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6(v6("2001:db8::1"), PKey.DEFAULT, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6(v6("fe80::1"), PKey.DEFAULT, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6(new byte[15], 0xFFFF, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6((byte[]) null, 0xFFFF, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4((Inet4Address) null, PKey.DEFAULT, 2));
    }

    @Test
    void fieldsBeyondTheirWidthAreRefused() {
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.broadcastGid(PKey.DEFAULT, 16));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.broadcastGid(PKey.DEFAULT, -1));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.broadcastGid(0x1_0000, 2));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4(0xE000_0001, -1, 2));
    }

    @Test
    void onlyABroadcastGidNamesALink() {
        assertThrows(IllegalArgumentException.class,
                () -> MulticastMapping.ipv4(v4("224.0.0.1"), Mgid.parse("ff12:401b:ffff::1")));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6(v6("ff02::1"), Mgid.parse("ff02::1")));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6(v6("ff02::1"), (Mgid) null));
    }

    // ---- reverse

    @Test
    void recognisesIpoibMgids() {
        assertTrue(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:401b:ffff::1")));
        assertTrue(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:601b:ffff::1")));
        assertTrue(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:401b:ffff::ffff:ffff")));
        // Not IPoIB: other flags, other signature, bits outside the 28 in an IPv4 MGID.
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff02:401b:ffff::1")));
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff32:401b:ffff::1")));
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:3333::1")));
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:401b:ffff::1000:0")));
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:401b:ffff:1::1")));
        assertFalse(MulticastMapping.isIpoibMgid(Mgid.parse("ff12:401b:ffff::1:ffff:ffff")));
        assertFalse(MulticastMapping.isBroadcastGid(Mgid.parse("ff12:601b:ffff::ffff:ffff")));
        assertFalse(MulticastMapping.isBroadcastGid(Mgid.parse("ff12:401b:ffff::fff:ffff")));
    }

    @Test
    void readsFamilyScopeAndPKeyBack() {
        Mgid v4 = Mgid.parse("ff15:401b:8123::1:203");
        assertEquals(Family.IPV4, MulticastMapping.family(v4));
        assertEquals(5, MulticastMapping.scope(v4));
        assertEquals(0x8123, MulticastMapping.pKey(v4));
        assertEquals(0x0001_0203, MulticastMapping.ipv4GroupBits(v4));
        assertEquals(v4("224.1.2.3"), MulticastMapping.ipv4Group(v4));
        Mgid v6 = Mgid.parse("ff12:601b:ffff:9abc:def0:1122:3344:5566");
        assertEquals(Family.IPV6, MulticastMapping.family(v6));
        assertArrayEquals(new byte[] {(byte) 0x9a, (byte) 0xbc, (byte) 0xde, (byte) 0xf0, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66},
                MulticastMapping.ipv6GroupBits(v6));
    }

    @Test
    void reverseRefusesWhatDoesNotApply() {
        Mgid notIpoib = Mgid.parse("ff02::1");
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.family(notIpoib));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.pKey(notIpoib));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.scope(notIpoib));
        assertThrows(IllegalArgumentException.class,
                () -> MulticastMapping.ipv4GroupBits(MulticastMapping.broadcastGid(PKey.DEFAULT)));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4GroupBits(Mgid.parse("ff12:601b:ffff::1")));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv4Group(Mgid.parse("ff12:601b:ffff::1")));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.ipv6GroupBits(Mgid.parse("ff12:401b:ffff::1")));
        assertThrows(IllegalArgumentException.class, () -> MulticastMapping.isIpoibMgid(null));
    }

    // ---- properties

    @Property(tries = 500)
    void ipv4RoundTrips(@ForAll @IntRange(max = 0x0FFF_FFFF) int low28, @ForAll @IntRange(max = 0xFFFF) int pKey,
            @ForAll @IntRange(max = 15) int scope) {
        int group = 0xE000_0000 | low28;
        Mgid mgid = MulticastMapping.ipv4(group, pKey, scope);
        assertTrue(mgid.isTransient());
        assertEquals(1, mgid.flags());
        assertTrue(MulticastMapping.isIpoibMgid(mgid));
        assertFalse(MulticastMapping.isBroadcastGid(mgid));
        assertEquals(Family.IPV4, MulticastMapping.family(mgid));
        assertEquals(scope, MulticastMapping.scope(mgid));
        assertEquals(pKey | 0x8000, MulticastMapping.pKey(mgid));
        assertEquals(low28, MulticastMapping.ipv4GroupBits(mgid));
        assertEquals(MulticastMapping.ipv4(MulticastMapping.ipv4Group(mgid), MulticastMapping.broadcastGid(pKey, scope)), mgid);
    }

    @Property(tries = 500)
    void ipv6RoundTrips(@ForAll @Size(16) byte[] group, @ForAll @IntRange(max = 0xFFFF) int pKey,
            @ForAll @IntRange(max = 15) int scope) {
        group[0] = (byte) 0xFF;
        Mgid mgid = MulticastMapping.ipv6(group, pKey, scope);
        assertTrue(MulticastMapping.isIpoibMgid(mgid));
        assertEquals(Family.IPV6, MulticastMapping.family(mgid));
        assertEquals(scope, MulticastMapping.scope(mgid));
        assertEquals(pKey | 0x8000, MulticastMapping.pKey(mgid));
        assertArrayEquals(Arrays.copyOfRange(group, 6, 16), MulticastMapping.ipv6GroupBits(mgid));
        // The top 48 bits of the group never show: the same low 80 bits give the same MGID.
        byte[] other = group.clone();
        other[2] ^= 0x5A;
        other[1] ^= 0x0F;
        assertEquals(mgid, MulticastMapping.ipv6(other, pKey, scope));
    }

    @Property(tries = 300)
    void broadcastGidIsRecognised(@ForAll @IntRange(min = 1, max = 0x7FFF) int base, @ForAll boolean full,
            @ForAll @IntRange(max = 15) int scope) {
        Mgid b = MulticastMapping.broadcastGid(new PKey(full ? base | 0x8000 : base), scope);
        assertTrue(MulticastMapping.isBroadcastGid(b));
        assertTrue(MulticastMapping.isIpoibMgid(b));
        assertEquals(base | 0x8000, MulticastMapping.pKey(b));
        assertEquals(scope, MulticastMapping.scope(b));
    }
}
