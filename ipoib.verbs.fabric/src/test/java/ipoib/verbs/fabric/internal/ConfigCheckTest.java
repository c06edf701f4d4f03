package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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
        assertTrue(error(".*", 1000, 3, "1", " ", "b").startsWith("invalid fabric provider property 'verbsLibrary' "
                + "value ' ': allowed a library file name (found on the dynamic loader's search path) or a path in /lib, "
                + "/usr/lib"));
        assertTrue(error(".*", 1000, 3, "1", "a", null).startsWith("invalid fabric provider property 'umadLibrary' "
                + "value 'null': allowed a library file name"));
    }

    @Test
    void keysAndFiltersAreRead() {
        FabricRuntime.Settings s = ConfigCheck.settings(" mlx5_.* ", 10, 20, "0xFFFFFFFFFFFFFFFF", "x.so", "y");
        assertEquals(-1L, s.smKey());
        assertEquals("mlx5_.*", s.deviceFilter().pattern());
        assertEquals(".*", ConfigCheck.settings("", 10, 1, "7", "a", "b").deviceFilter().pattern());
        assertEquals(7L, ConfigCheck.settings("", 10, 1, "7", "a", "b").smKey());
    }

    /**
     * Loading a library runs its constructors as the appliance's user: a library a local user
     * could have written (under /tmp) is refused before anything is loaded, whether named directly
     * or through a path that leaves a system directory.
     */
    @Test
    void librariesLoadOnlyFromTheSystemDirectoriesOrThoseOfTheLaunchProperty(@TempDir Path tmp) throws Exception {
        Path marker = tmp.resolve("constructor-ran");
        Path evil = compile(tmp, "evil.so", "#include <stdio.h>\n"
                + "__attribute__((constructor)) static void run(void) { FILE *f = fopen(\"" + marker + "\", \"w\");"
                + " if (f) fclose(f); }\n");
        for (String path : new String[] {evil.toString(), "/usr/lib/../../" + evil, "relative/evil.so",
                "/usr/lib/no-such-library.so"}) {
            TestConfig c = new TestConfig();
            c.verbsLibrary = path;
            TestConfig.RecordingLog log = new TestConfig.RecordingLog();
            FabricVerbsProvider provider = new FabricVerbsProvider(c, java.util.Map.of(), log.logger());
            String reason = provider.status().reason();
            assertTrue(reason.startsWith("invalid configuration: invalid fabric provider property 'verbsLibrary' value '"
                    + path + "': allowed a library file name (found on the dynamic loader's search path) or a path in "
                    + "/lib, /usr/lib"), reason);
            assertTrue(reason.contains("or a directory of the launch property ipoib.fabric.libraryDirs"), reason);
            assertTrue(reason.endsWith("nothing was loaded"), reason);
            provider.close();
            assertFalse(Files.exists(marker), "the library's constructor did not run for " + path);
        }
        // A link in a system directory is judged by what it points to.
        Path libc = Path.of("/lib/x86_64-linux-gnu/libc.so.6");
        assertEquals(libc.toRealPath().toString(), ConfigCheck.settings(".*", 1000, 3, "0", libc.toString(),
                "libibumad.so.3").verbsLibrary());
        // The operator may name another directory at launch, outside the console's reach.
        LibraryLocations operator = LibraryLocations.fromProperties(
                java.util.Map.of(LibraryLocations.DIRECTORIES_PROPERTY, tmp.toString())::get);
        assertEquals(evil.toRealPath().toString(), operator.check("verbsLibrary", evil.toString()));
    }

    private static Path compile(Path dir, String name, String source) throws Exception {
        Path c = Files.writeString(dir.resolve(name + ".c"), source);
        Path so = dir.resolve(name);
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", so.toString(), c.toString())
                .redirectErrorStream(true).start();
        String out = new String(gcc.getInputStream().readAllBytes());
        assertTrue(gcc.waitFor(60, java.util.concurrent.TimeUnit.SECONDS) && gcc.exitValue() == 0, "gcc: " + out);
        return so;
    }

    @Test
    void rawPropertiesAreCheckedAgainstTheMetatypeBeforeConversion() {
        // DS would turn 4294967297 into the int 1 and 'abc' into a NumberFormatException without a name.
        String e = assertThrows(IllegalArgumentException.class, () -> ConfigCheck.settings(new TestConfig(),
                java.util.Map.of("saRetries", 4_294_967_297L), LibraryLocations.system())).getMessage();
        assertEquals("invalid ipoib.verbs.fabric property 'saRetries' value 4294967297 is out of range: allowed 1..20", e);
        e = assertThrows(IllegalArgumentException.class, () -> ConfigCheck.settings(new TestConfig(),
                java.util.Map.of("saTimeoutMillis", "abc"), LibraryLocations.system())).getMessage();
        assertEquals("invalid ipoib.verbs.fabric property 'saTimeoutMillis' value 'abc' is not a number: allowed "
                + "10..60000", e);
    }
}
