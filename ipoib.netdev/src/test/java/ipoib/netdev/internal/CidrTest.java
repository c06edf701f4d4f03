package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class CidrTest {
    @Test
    void parsesBothFamilies() {
        assertEquals("10.0.0.1/24", Cidr.parse("10.0.0.1/24").toString());
        assertTrue(Cidr.parse("fd00::1/64").ipv6());
        assertEquals(64, Cidr.parse("fe80::202:c903:0:101/64").prefixLength());
    }

    @Test
    void subnetBroadcast() {
        assertEquals(0x0A0000FF, Cidr.parse("10.0.0.1/24").broadcast4());
        assertEquals(0x0A00FFFF, Cidr.parse("10.0.3.9/16").broadcast4());
        assertEquals(0, Cidr.parse("10.0.0.1/32").broadcast4());
        assertEquals(0, Cidr.parse("fd00::1/64").broadcast4());
    }

    @Test
    void refusesWithTheValueAndWhatIsAllowed() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0.1"))
                .getMessage().contains("'10.0.0.1' has no prefix length"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Cidr.parse("10.0.0.1/33"))
                .getMessage().contains("must be 1..32"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Cidr.parse("fd00::1/129"))
                .getMessage().contains("must be 1..128"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Cidr.parse("example.org/24"))
                .getMessage().contains("not an IP literal"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Cidr.parse("239.1.1.1/24"))
                .getMessage().contains("multicast"));
    }

    /** IPv6 in RFC 5952's compressed form, as ip(8) and the rest of the shell show it. */
    @Test
    void anIpv6PrefixIsShownCompressed() {
        assertEquals("fe80::202:c903:0:101/64", Cidr.parse("fe80:0:0:0:202:c903:0:101/64").toString());
    }
}
