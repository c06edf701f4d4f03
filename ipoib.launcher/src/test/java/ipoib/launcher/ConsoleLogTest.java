package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.logging.Level;
import org.junit.jupiter.api.Test;
import org.osgi.service.log.LogLevel;

class ConsoleLogTest {

    @Test
    void levelsAreParsedWhateverTheirCase() {
        assertEquals(LogLevel.DEBUG, ConsoleLog.parseLevel(" debug "));
        assertEquals(LogLevel.INFO, ConsoleLog.parseLevel("INFO"));
    }

    @Test
    void anUnknownLevelNamesTheAllowedOnes() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConsoleLog.parseLevel("LOUD"));
        assertEquals("log level 'LOUD': allowed ERROR, WARN, INFO, DEBUG, TRACE", e.getMessage());
    }

    /** The error, the usage and the README list the same levels: AUDIT is none of them. */
    @Test
    void auditIsNotALevelToSet() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConsoleLog.parseLevel("audit"));
        assertEquals("log level 'audit': allowed ERROR, WARN, INFO, DEBUG, TRACE", e.getMessage());
    }

    /** java.util.logging's levels (the loopback fabric, the codec) map onto the OSGi ones and back. */
    @Test
    void javaUtilLoggingLevelsMapBothWays() {
        assertEquals(LogLevel.ERROR, ConsoleLog.fromJul(Level.SEVERE));
        assertEquals(LogLevel.WARN, ConsoleLog.fromJul(Level.WARNING));
        assertEquals(LogLevel.INFO, ConsoleLog.fromJul(Level.INFO));
        assertEquals(LogLevel.DEBUG, ConsoleLog.fromJul(Level.FINE));
        assertEquals(LogLevel.DEBUG, ConsoleLog.fromJul(Level.FINER));
        assertEquals(LogLevel.TRACE, ConsoleLog.fromJul(Level.FINEST));
        for (LogLevel level : new LogLevel[] {LogLevel.ERROR, LogLevel.WARN, LogLevel.INFO, LogLevel.DEBUG, LogLevel.TRACE}) {
            assertEquals(level, ConsoleLog.fromJul(ConsoleLog.toJul(level)), level.name());
        }
    }
}
