package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class LinkNamesTest {
    @Test
    void theDesignDocumentsExampleWithAFourDigitPKey() {
        // The link driver design's §2.1.1: CA 0, port 1, partition 20 is ib0_1_14.
        assertEquals("ib0_1_0014", LinkNames.defaultName(0, 1, 20));
    }

    @Test
    void caIndexAndPortAreHexadecimal() {
        assertEquals("iba_1_ffff", LinkNames.defaultName(10, 1, 0xffff));
        assertEquals("ib10_1_ffff", LinkNames.defaultName(16, 1, 0xffff));
        assertEquals("ib3f_2_7fff", LinkNames.defaultName(63, 2, 0x7fff));
    }

    @Test
    void theCaIndexIsTheDecimalNumberEndingTheDeviceName() {
        assertEquals(16, LinkNames.caIndex("loop16"));
        assertEquals(0, LinkNames.caIndex("mlx5_0"));
        assertEquals(0, LinkNames.caIndex("loop"));
    }
}
