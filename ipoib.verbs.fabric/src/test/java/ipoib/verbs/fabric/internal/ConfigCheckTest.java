package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

class ConfigCheckTest {

    private static String error(String filter, int timeout, int retries, String smKey, String verbs, String umad) {
        return assertThrows(IllegalArgumentException.class,
                () -> ConfigCheck.settings(filter, timeout, retries, smKey, verbs, umad)).getMessage();
    }

    @Test
    void defaultsAreValid() {
        FabricRuntime.Settings s = ConfigCheck.settings(new TestConfig());
        assertEquals(1000, s.saTimeoutMillis());
        assertEquals(3, s.saAttempts());
        assertEquals(0L, s.smKey(), "SM_Key 0 as Linux sends it");
        assertEquals("libibverbs.so.1", s.verbsLibrary());
        assertEquals(".*", s.deviceFilter().pattern());
    }

    @Test
    void everyBadValueIsNamedWithItsRange() {
        assertEquals("invalid fabric provider property 'deviceFilter' value 'mlx5_[': allowed a Java regular "
                + "expression (Unclosed character class)", error("mlx5_[", 1000, 3, "1", "a", "b"));
        // The numeric ranges come from the metatype (FabricConfiguration), the one place they are declared.
        assertEquals("invalid ipoib.verbs.fabric property 'saTimeoutMillis' value 60001 is out of range: allowed "
                + "10..60000", error(".*", 60001, 3, "1", "a", "b"));
        assertEquals("invalid ipoib.verbs.fabric property 'saRetries' value 0 is out of range: allowed 1..20",
                error(".*", 1000, 0, "1", "a", "b"));
        assertEquals("invalid ipoib.verbs.fabric property 'saRetries' value 21 is out of range: allowed 1..20",
                error(".*", 1000, 21, "1", "a", "b"));
        assertEquals("invalid fabric provider property 'smKey' value '0xg': allowed a 64-bit key, hex (0x1) or "
                + "decimal", error(".*", 1000, 3, "0xg", "a", "b"));
        assertEquals("invalid fabric provider property 'verbsLibrary' value ' ': allowed a library file name or path",
                error(".*", 1000, 3, "1", " ", "b"));
        assertEquals("invalid fabric provider property 'umadLibrary' value 'null': allowed a library file name or "
                + "path", error(".*", 1000, 3, "1", "a", null));
    }

    @Test
    void keysAndFiltersAreRead() {
        FabricRuntime.Settings s = ConfigCheck.settings(" mlx5_.* ", 10, 20, "0xFFFFFFFFFFFFFFFF", "/opt/x.so", "y");
        assertEquals(-1L, s.smKey());
        assertEquals("mlx5_.*", s.deviceFilter().pattern());
        assertEquals(".*", ConfigCheck.settings("", 10, 1, "7", "a", "b").deviceFilter().pattern());
        assertEquals(7L, ConfigCheck.settings("", 10, 1, "7", "a", "b").smKey());
    }

    @Test
    void rawPropertiesAreCheckedAgainstTheMetatypeBeforeConversion() {
        // DS would turn 4294967297 into the int 1 and 'abc' into a NumberFormatException without a name.
        String e = assertThrows(IllegalArgumentException.class, () -> ConfigCheck.settings(new TestConfig(),
                java.util.Map.of("saRetries", 4_294_967_297L))).getMessage();
        assertEquals("invalid ipoib.verbs.fabric property 'saRetries' value 4294967297 is out of range: allowed 1..20", e);
        e = assertThrows(IllegalArgumentException.class, () -> ConfigCheck.settings(new TestConfig(),
                java.util.Map.of("saTimeoutMillis", "abc"))).getMessage();
        assertEquals("invalid ipoib.verbs.fabric property 'saTimeoutMillis' value 'abc' is not a number: allowed "
                + "10..60000", e);
    }
}
