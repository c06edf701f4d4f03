package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

class ShownValueTest {

    @Test
    void textsAreQuotedNumbersAndBooleansAreNot() {
        assertEquals("'loop0'", ShownValue.of("loop0"));
        assertEquals("42", ShownValue.of(42));
        assertEquals("4294967297", ShownValue.of(4_294_967_297L));
        assertEquals("true", ShownValue.of(Boolean.TRUE));
        assertEquals("''", ShownValue.of(""));
        assertEquals("(none)", ShownValue.of(null));
    }

    @Test
    void arraysAreJoinedWithABar() {
        assertEquals("'loop0|loop1/1'", ShownValue.of(new String[] {"loop0", "loop1/1"}));
        assertEquals("'1|2'", ShownValue.of(new int[] {1, 2}));
        assertEquals("'[a, b]'", ShownValue.of(List.of("a", "b").toString()));
    }

    @Test
    void aLongValueIsCutToEightyCharactersWithItsLength() {
        String x80 = "x".repeat(80);
        assertEquals("'" + x80 + "'", ShownValue.of(x80), "80 characters are shown whole");
        assertEquals("'" + x80 + "…(70000 chars)'", ShownValue.of("x".repeat(70_000)));
        assertEquals(x80 + "…(81 chars)", ShownValue.cut("x".repeat(81)));
        assertEquals("'" + "a|".repeat(40) + "…(199 chars)'", ShownValue.of("a,".repeat(100).split(",")));
    }
}
