package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.json.Json;
import jakarta.json.JsonObject;
import java.io.StringReader;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.osgi.framework.BundleContext;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.admin.LoggerAdmin;
import org.osgi.service.log.admin.LoggerContext;

/** {@code ipoib:log --json}, read by a real JSON parser: the two thresholds docs/JSON.md documents. */
class LogLevelsJsonTest {
    private ConsoleLog log;

    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, Function<String, Object> answers) {
        return (T) Proxy.newProxyInstance(LogLevelsJsonTest.class.getClassLoader(), new Class<?>[] {type},
                (p, method, args) -> answers.apply(method.getName()));
    }

    private static ConsoleLog consoleLog(Map<String, String> properties) {
        Map<String, Object> levels = new HashMap<>();
        LoggerContext root = proxy(LoggerContext.class, m -> m.equals("getLogLevels") ? levels : null);
        LoggerAdmin admin = proxy(LoggerAdmin.class, m -> m.equals("getLoggerContext") ? root : null);
        BundleContext context = (BundleContext) Proxy.newProxyInstance(LogLevelsJsonTest.class.getClassLoader(),
                new Class<?>[] {BundleContext.class},
                (p, method, args) -> method.getName().equals("getProperty") ? properties.get((String) args[0]) : null);
        return new ConsoleLog(context, proxy(LogReaderService.class, m -> null), admin,
                new FrameworkEventGate(org.osgi.service.log.LogLevel.WARN));
    }

    private static JsonObject parse(String text) {
        try (var reader = Json.createReader(new StringReader(text))) {
            return reader.readObject();
        }
    }

    @AfterEach
    void close() {
        log.deactivate();
    }

    @Test
    void theProjectsAndTheFrameworksLevels() {
        log = consoleLog(Map.of(ConsoleLog.LEVEL_PROPERTY, "debug"));
        JsonObject json = parse(log.log("--json"));
        assertEquals(Set.of("level", "framework"), json.keySet());
        assertEquals("DEBUG", json.getString("level"));
        assertEquals("WARN", json.getString("framework"), "the default");
        log.log("framework", "error");
        assertEquals("ERROR", parse(log.log("--json")).getString("framework"));
    }

    @Test
    void settingALevelRefusesJsonWithTheUsage() {
        log = consoleLog(Map.of());
        for (String[] args : new String[][] {{"INFO", "--json"}, {"framework", "INFO", "--json"}}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> log.log(args));
            assertTrue(e.getMessage().contains("usage: ipoib:log [ERROR|WARN|INFO|DEBUG|TRACE]"), e.getMessage());
        }
        assertEquals("WARN", parse(log.log("--json")).getString("level"), "nothing was set");
    }
}
