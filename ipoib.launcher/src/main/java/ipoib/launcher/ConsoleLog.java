package ipoib.launcher;

import java.io.FileOutputStream;
import java.io.FileDescriptor;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;

/**
 * Writes log entries at or above a threshold to the process's stderr, so that the appliance's
 * warnings and errors are seen without a log viewer. The threshold is the framework property
 * {@value #LEVEL_PROPERTY} (ERROR, WARN, INFO, DEBUG; default WARN). The full log stays
 * available through the shell's {@code log} command.
 */
@Component(immediate = true, service = {})
public final class ConsoleLog implements LogListener {

    /** Framework property: the lowest level written to stderr. */
    public static final String LEVEL_PROPERTY = "ipoib.log.level";

    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private final LogReaderService reader;
    private final LogLevel threshold;
    private final PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);

    @Activate
    public ConsoleLog(BundleContext context, @Reference LogReaderService reader) {
        this.reader = reader;
        this.threshold = parseLevel(context.getProperty(LEVEL_PROPERTY));
        reader.addLogListener(this);
    }

    static LogLevel parseLevel(String text) {
        if (text == null || text.isBlank()) {
            return LogLevel.WARN;
        }
        try {
            return LogLevel.valueOf(text.strip().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            System.err.println("ipoib: invalid " + LEVEL_PROPERTY + " '" + text
                    + "': allowed AUDIT, ERROR, WARN, INFO, DEBUG, TRACE; using WARN");
            return LogLevel.WARN;
        }
    }

    @Deactivate
    void deactivate() {
        reader.removeLogListener(this);
    }

    @Override
    public void logged(LogEntry entry) {
        if (!threshold.implies(entry.getLogLevel())) {
            return;
        }
        StringBuilder line = new StringBuilder(128)
                .append(TIME.format(Instant.ofEpochMilli(entry.getTime()))).append(' ')
                .append(entry.getLogLevel()).append(' ')
                .append(entry.getBundle() == null ? "?" : entry.getBundle().getSymbolicName()).append(": ")
                .append(entry.getMessage());
        if (entry.getException() != null) {
            line.append(" (").append(entry.getException()).append(')');
        }
        err.println(line);
    }
}
