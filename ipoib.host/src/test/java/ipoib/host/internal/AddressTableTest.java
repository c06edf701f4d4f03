package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class AddressTableTest {

    final List<String> events = new ArrayList<>();
    final AddressTable table = new AddressTable((a, c) -> events.add(c + " " + a.cidr() + " " + a.state()));

    static InetAddress ip(String text) throws Exception {
        return InetAddress.getByName(text);
    }

    @Test
    void ipv4IsPreferredAtOnceIpv6TentativeUntilDad() throws Exception {
        table.add("ib0", ip("10.0.0.1"), 24, AddressOrigin.CONFIGURED, null);
        table.add("ib0", ip("fd00::1"), 64, AddressOrigin.MANUAL, null);
        assertEquals(List.of("ADDED 10.0.0.1/24 PREFERRED", "ADDED fd00::1/64 TENTATIVE"), events);
        assertTrue(table.fast("ib0").isLocal4(0x0A000001));
        assertFalse(table.fast("ib0").isLocal6(0xfd00_0000_0000_0000L, 1), "a tentative address is not ours yet");
        assertTrue(table.setState("ib0", ip("fd00::1"), AddressState.PREFERRED));
        assertTrue(table.fast("ib0").isLocal6(0xfd00_0000_0000_0000L, 1));
        assertEquals("STATE fd00::1/64 PREFERRED", events.get(2));
        // re-adding keeps the state, changes the prefix
        table.add("ib0", ip("fd00::1"), 48, AddressOrigin.MANUAL, null);
        InterfaceAddress a = table.addresses("ib0").get(1);
        assertEquals(48, a.prefixLength());
        assertEquals(AddressState.PREFERRED, a.state());
        assertTrue(table.remove("ib0", ip("10.0.0.1")));
        assertFalse(table.fast("ib0").isLocal4(0x0A000001));
        assertFalse(table.remove("ib0", ip("10.0.0.1")));
        assertTrue(events.contains("REMOVED 10.0.0.1/24 PREFERRED"));
        assertEquals(AddressListener.Change.values().length, 4);
    }

    @Test
    void broadcastAddressesOfThePrefixesAreKnown() throws Exception {
        table.add("ib0", ip("10.1.2.3"), 16, AddressOrigin.CONFIGURED, null);
        assertTrue(table.fast("ib0").isBroadcast4(0x0A01FFFF));
        assertFalse(table.fast("ib0").isBroadcast4(0x0A01FFFE));
        assertFalse(table.fast("ib1").isBroadcast4(0x0A01FFFF));
    }

    @Test
    void cidrTextIsParsedStrictly() throws Exception {
        assertEquals(new AddressTable.InterfaceAddressSpec(ip("10.0.0.1"), 24), AddressTable.parseCidr("10.0.0.1/24"));
        assertEquals(32, AddressTable.parseCidr("10.0.0.1").prefixLength());
        assertEquals(64, AddressTable.parseCidr("fe80::1").prefixLength());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AddressTable.parseCidr("10.0.0.1/33")).getMessage()
                .contains("prefix length 33 outside 0..32"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AddressTable.parseCidr("10.0.0.256/8")).getMessage()
                .contains("256 is not an octet"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AddressTable.parseCidr("host.example/8"))
                .getMessage().contains("expected an address"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> AddressTable.parseCidr("224.0.0.1/4"))
                .getMessage().contains("multicast"));
        assertThrows(IllegalArgumentException.class, () -> AddressTable.parseCidr("10.0.0.1/x"));
        assertThrows(IllegalArgumentException.class, () -> table.add("bad name", ip("10.0.0.1"), 8,
                AddressOrigin.MANUAL, null));
        assertThrows(IllegalArgumentException.class, () -> table.add("ib0", ip("10.0.0.1"), 40,
                AddressOrigin.MANUAL, null));
    }
}
