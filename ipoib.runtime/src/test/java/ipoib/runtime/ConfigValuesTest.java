package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Raw properties read through a configuration annotation as Declarative Services reads them. */
class ConfigValuesTest {

    @interface Sample {
        int ttl() default 64;

        long idleMillis() default 300_000L;

        boolean gratuitous() default true;

        String serviceLevel() default "broadcast";

        String[] members() default {"ALL"};

        String provider_target() default "(ipoib.provider=loopback)";

        String my__name() default "n";

        double ratio() default 0.5;
    }

    @Test
    void anAbsentPropertyHasTheAnnotationsDefault() {
        Sample s = ConfigValues.of(Sample.class, Map.of());
        assertEquals(64, s.ttl());
        assertEquals(300_000L, s.idleMillis());
        assertTrue(s.gratuitous());
        assertEquals("broadcast", s.serviceLevel());
        assertArrayEquals(new String[] {"ALL"}, s.members());
        assertEquals(0.5, s.ratio());
    }

    @Test
    void textsAndOtherNumberTypesAreConverted() {
        Sample s = ConfigValues.of(Sample.class, Map.of("ttl", " 0x10 ", "idleMillis", 5, "gratuitous", "FALSE",
                "ratio", "2.5"));
        assertEquals(16, s.ttl(), "decoded as Integer.decode does, after stripping");
        assertEquals(5L, s.idleMillis());
        assertFalse(s.gratuitous());
        assertEquals(2.5, s.ratio());
    }

    @Test
    void namesMapAsTheComponentSpecificationSays() {
        Sample s = ConfigValues.of(Sample.class, Map.of("provider.target", "(ipoib.provider=fabric)", "my_name", "m"));
        assertEquals("(ipoib.provider=fabric)", s.provider_target(), "_ reads .");
        assertEquals("m", s.my__name(), "__ reads _");
    }

    @Test
    void oneValueAndManyAreArraysOrTheirFirstElement() {
        assertArrayEquals(new String[] {"loop0"}, ConfigValues.of(Sample.class, Map.of("members", "loop0")).members());
        assertArrayEquals(new String[] {"a", "b"},
                ConfigValues.of(Sample.class, Map.of("members", List.of("a", "b"))).members());
        assertEquals(7, ConfigValues.of(Sample.class, Map.of("ttl", new int[] {7, 8})).ttl());
        assertEquals(64, ConfigValues.of(Sample.class, Map.of("ttl", new int[0])).ttl() , "an empty array: the default");
    }

    @Test
    void objectMethodsAnswerWithoutTouchingTheProperties() {
        Sample s = ConfigValues.of(Sample.class, Map.of("ttl", 3));
        assertTrue(s.equals(s));
        assertFalse(s.equals(ConfigValues.of(Sample.class, Map.of("ttl", 3))));
        assertTrue(s.toString().startsWith("Sample{"), s.toString());
    }
}
