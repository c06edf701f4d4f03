package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class NumbersTest {

    @Test
    void aNumberOutsideTheRangeIsOutOfRangeNotNoNumber() {
        assertEquals("port '99999999999' is out of range: allowed 1..254",
                assertThrows(IllegalArgumentException.class, () -> Numbers.parse("port", "99999999999", 1, 254))
                        .getMessage());
        assertEquals("LID '123456789012345678901234567890' is out of range: allowed 1..49151",
                assertThrows(IllegalArgumentException.class,
                        () -> Numbers.parse("LID", "123456789012345678901234567890", 1, 0xBFFF)).getMessage());
        assertEquals("port 'x1' is not a number: allowed 1..254",
                assertThrows(IllegalArgumentException.class, () -> Numbers.parse("port", "x1", 1, 254)).getMessage());
        assertEquals("count '' is not a number: allowed 1..10",
                assertThrows(IllegalArgumentException.class, () -> Numbers.parse("count", "", 1, 10)).getMessage());
    }

    @Test
    void decimalAndHexadecimalWithinTheRangePass() {
        assertEquals(254, Numbers.parse("port", "254", 1, 254));
        assertEquals(0x20, Numbers.parse("LID", "0x20", 1, 0xBFFF));
        assertEquals(-3, Numbers.parse("delta", "-3", -5, 5));
    }
}
