package ipoib.api.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.Inet6Address;
import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class AddressBitsTest {

    @Test
    void ipv4IsTheLowThirtyTwoBits() throws Exception {
        InetAddress a = InetAddress.getByName("10.0.0.1");
        assertEquals(0, AddressBits.high(a));
        assertEquals(0x0A000001L, AddressBits.low(a));
        assertEquals(0xC0A800C7, AddressBits.ipv4(InetAddress.getByName("192.168.0.199")));
        assertEquals(0xFFFFFFFFL, AddressBits.low(InetAddress.getByName("255.255.255.255")));
        assertEquals(a, AddressBits.address(false, 0, 0x0A000001L));
        assertEquals("10.0.0.1", AddressBits.text(a));
    }

    @Test
    void ipv6IsBothHalvesAndItsTextIsCanonical() throws Exception {
        InetAddress a = InetAddress.getByName("fe80::202:c903:0:101");
        assertEquals(0xfe80_0000_0000_0000L, AddressBits.high(a));
        assertEquals(0x0202_c903_0000_0101L, AddressBits.low(a));
        assertEquals(a, AddressBits.ipv6(0xfe80_0000_0000_0000L, 0x0202_c903_0000_0101L));
        assertEquals("fe80::202:c903:0:101", AddressBits.text(a));
        assertEquals("fd00:4::1", AddressBits.text(InetAddress.getByName("fd00:4:0:0:0:0:0:1")));
        // an IPv4-mapped address stays IPv6
        assertTrue(AddressBits.ipv6(0, 0x0000_ffff_0a00_0001L) instanceof Inet6Address);
        assertThrows(IllegalArgumentException.class, () -> AddressBits.ipv4(a));
        assertThrows(IllegalArgumentException.class, () -> AddressBits.low(null));
    }
}
