package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.junit.jupiter.api.Test;

class CapabilityFlagsTest {

    // Advanced-capabilities draft §2.0: | QPN | RC | UC | RD | 0 | 0 | 0 | 0 |, most significant bit first.
    @Test
    void bitsAreThoseOfTheDraft() {
        assertEquals(0x80, CapabilityFlags.QPN);
        assertEquals(0x40, CapabilityFlags.RC);
        assertEquals(0x20, CapabilityFlags.UC);
        assertEquals(0x10, CapabilityFlags.RD);
        assertEquals(0xF0, CapabilityFlags.DEFINED);
    }

    @Property(tries = 256)
    void unimplementedCapabilitiesAreTransmittedAsZeroAndIgnoredOnReceive(@ForAll @IntRange(max = 255) int flags) {
        assertEquals(0, CapabilityFlags.toTransmit(flags));
        assertEquals(0, CapabilityFlags.honoured(flags));
        assertEquals(flags & 0xF0, CapabilityFlags.announced(flags));
    }

    @Test
    void describesAnnouncedFlags() {
        assertEquals("none", CapabilityFlags.describe(0x0F));
        assertEquals("QPN|RC|UC|RD", CapabilityFlags.describe(0xFF));
        assertEquals("RC|RD", CapabilityFlags.describe(0x50));
        assertTrue(CapabilityFlags.has(0xC0, CapabilityFlags.RC));
        assertFalse(CapabilityFlags.has(0x80, CapabilityFlags.RC | CapabilityFlags.QPN));
    }
}
