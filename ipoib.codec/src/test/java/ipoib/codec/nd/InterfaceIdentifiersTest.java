package ipoib.codec.nd;

import static ipoib.codec.nd.NdCodecTest.ip;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Guid;
import ipoib.api.Lid;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.junit.jupiter.api.Test;

class InterfaceIdentifiersTest {

    // RFC 4391 §8: an unmodified EUI-64 (u bit 0, as a manufacturer-assigned GUID has it) gets the
    // u bit toggled, as RFC 4291 Appendix A does for an IEEE EUI-64.
    @Test
    void unmodifiedGuidGetsTheUBitToggled() {
        Guid guid = Guid.parse("0002:c903:0000:0001");
        assertFalse(InterfaceIdentifiers.isModifiedEui64(guid));
        assertEquals(0x0202_c903_0000_0001L, InterfaceIdentifiers.fromGuid(guid));
    }

    // RFC 4391 §8: a GUID that is already a modified EUI-64 ("u" bit toggled) MUST NOT be toggled again.
    @Test
    void modifiedGuidIsUsedUnchanged() {
        Guid guid = Guid.parse("0202:c903:0000:0001");
        assertTrue(InterfaceIdentifiers.isModifiedEui64(guid));
        assertEquals(0x0202_c903_0000_0001L, InterfaceIdentifiers.fromGuid(guid));
    }

    @Property(tries = 200)
    void identifierFromAGuidAlwaysHasTheUBitAndOtherwiseTheGuidsBits(@ForAll long value) {
        long iid = InterfaceIdentifiers.fromGuid(new Guid(value));
        assertEquals(InterfaceIdentifiers.U_BIT, iid & InterfaceIdentifiers.U_BIT);
        assertEquals(value & ~InterfaceIdentifiers.U_BIT, iid & ~InterfaceIdentifiers.U_BIT);
    }

    // RFC 4391 §8 item 2 with RFC 4291 Appendix A (non-global token appended to zeros, u bit 0).
    @Test
    void identifierFromALidIsTheLidAfterZeros() {
        assertEquals(0x0012L, InterfaceIdentifiers.fromLid(new Lid(0x12)));
        assertEquals(0xBFFFL, InterfaceIdentifiers.fromLid(new Lid(0xBFFF)));
        assertEquals(ip("fe80::12"), InterfaceIdentifiers.linkLocal(InterfaceIdentifiers.fromLid(new Lid(0x12))));
    }

    @Test
    void onlyUnicastLidsNameAPort() {
        assertThrows(IllegalArgumentException.class, () -> InterfaceIdentifiers.fromLid(Lid.UNASSIGNED));
        assertThrows(IllegalArgumentException.class, () -> InterfaceIdentifiers.fromLid(new Lid(0xC000)));
        assertThrows(IllegalArgumentException.class, () -> InterfaceIdentifiers.fromLid(new Lid(0xFFFF)));
    }

    // RFC 4391 §8.1 / RFC 4291 §2.5.6: fe80::/64 followed by the interface identifier.
    @Test
    void linkLocalAddressFromGuid() {
        long iid = InterfaceIdentifiers.fromGuid(Guid.parse("0002:c903:0000:0001"));
        assertEquals(ip("fe80::202:c903:0:1"), InterfaceIdentifiers.linkLocal(iid));
        assertEquals(ip("2001:db8::202:c903:0:1"), InterfaceIdentifiers.address(0x2001_0db8_0000_0000L, iid));
    }

    // RFC 4291 §2.7.1 gives this example: 4037::01:800:200E:8C6C -> FF02::1:FF0E:8C6C.
    @Test
    void solicitedNodeMulticastOfRfc4291Example() {
        assertEquals(ip("ff02::1:ff0e:8c6c"), InterfaceIdentifiers.solicitedNodeMulticast(ip("4037::01:800:200e:8c6c")));
        assertTrue(InterfaceIdentifiers.isSolicitedNodeMulticast(ip("ff02::1:ff0e:8c6c")));
        assertFalse(InterfaceIdentifiers.isSolicitedNodeMulticast(ip("ff02::1")));
        assertFalse(InterfaceIdentifiers.isSolicitedNodeMulticast(ip("ff05::1:ff0e:8c6c")));
        assertFalse(InterfaceIdentifiers.isSolicitedNodeMulticast(ip("ff02::2:1:ff0e:8c6c")));
    }

    @Test
    void ipv4MappedAddressesStayIpv6() {
        // ::ffff:192.0.2.1 must not turn into an Inet4Address on the way through.
        assertEquals(ip("ff02::1:ff00:201"), InterfaceIdentifiers.solicitedNodeMulticast(
                InterfaceIdentifiers.address(0, 0x0000_ffff_c000_0201L)));
    }
}
