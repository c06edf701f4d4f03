package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** The web console's PID is checked against its metatype before DS converts the values. */
class ConsoleConfigurationCheckTest {

    @Test
    void aPortOutsideTheTcpRangeOrNotANumberIsRefusedWithTheRange() {
        assertEquals("invalid ipoib.console property 'port' value 70000 is out of range: allowed 0..65535",
                ConsoleAccess.refusal(Map.of("port", 70_000)));
        assertEquals("invalid ipoib.console property 'port' value 'http' is not a number: allowed 0..65535",
                ConsoleAccess.refusal(Map.of("port", "http")));
        // 2^32 + 8080 would be 8080 after DS's int conversion: refused, not truncated
        assertEquals("invalid ipoib.console property 'port' value 4294975376 is out of range: allowed 0..65535",
                ConsoleAccess.refusal(Map.of("port", 4_294_975_376L)));
    }

    @Test
    void aRefreshIntervalOutsideItsRangeIsRefused() {
        assertEquals("invalid ipoib.console property 'refreshMillis' value 50 is out of range: allowed 200..60000",
                ConsoleAccess.refusal(Map.of("refreshMillis", 50)));
        assertEquals("invalid ipoib.console property 'refreshMillis' value 60001 is out of range: allowed 200..60000",
                ConsoleAccess.refusal(Map.of("refreshMillis", 60_001)));
        assertNull(ConsoleAccess.refusal(Map.of("refreshMillis", 200)));
    }

    @Test
    void aValidConfigurationPasses() {
        assertNull(ConsoleAccess.refusal(Map.of("port", 8081, "host", "127.0.0.1", "username", "ops",
                "password", "s3cret", "service.pid", "ipoib.console")));
    }
}
