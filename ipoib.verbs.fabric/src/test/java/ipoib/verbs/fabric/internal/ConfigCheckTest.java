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
        assertEquals("invalid fabric provider property 'saTimeoutMillis' value '60001': allowed 10..60000",
                error(".*", 60001, 3, "1", "a", "b"));
        assertEquals("invalid fabric provider property 'saRetries' value '0': allowed 1..20",
                error(".*", 1000, 0, "1", "a", "b"));
        assertEquals("invalid fabric provider property 'saRetries' value '21': allowed 1..20",
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
}
