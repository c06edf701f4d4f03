package ipoib.launcher;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.log.Logger;
import org.osgi.service.log.admin.LoggerAdmin;
import org.osgi.service.log.admin.LoggerContext;

/**
 * Writes log entries to the process's stderr, so that the appliance's messages are seen without
 * a log viewer. Two thresholds: the project's bundles ({@code ipoib.*}, framework property
 * {@value #LEVEL_PROPERTY}, default WARN) and everything else, the framework's bundle/service
 * events and the runtime bundles ({@value #FRAMEWORK_PROPERTY}, default WARN), so that
 * {@code -Dipoib.log.level=DEBUG} shows what the stack does without the framework's chatter.
 * Both change at runtime with {@code ipoib:log}. The OSGi Logger's own threshold (the root
 * {@link LoggerContext}, WARN by default) is lowered to match, or the bundles' INFO and DEBUG
 * messages would never reach the log; java.util.logging (used by the loopback fabric and the
 * codec) is routed here too.
 */
@Component(immediate = true, service = ConsoleLog.class, property = {
        "osgi.command.scope=ipoib", "osgi.command.function=log",
        "ipoib.command.completion=log ERROR|WARN|INFO|DEBUG|TRACE",
        "ipoib.command.completion=log framework ERROR|WARN|INFO|DEBUG|TRACE",
        "ipoib.command.completion=log --json"})
public final class ConsoleLog implements LogListener {

    /** Framework property: the lowest level of the project's messages written to stderr. */
    public static final String LEVEL_PROPERTY = "ipoib.log.level";
    /** Framework property: the lowest level of the framework's and runtime bundles' messages. */
    public static final String FRAMEWORK_PROPERTY = "ipoib.log.framework";

    private static final String USAGE = "ipoib:log [ERROR|WARN|INFO|DEBUG|TRACE] | ipoib:log framework <level> | ipoib:log --json";
    /** The listings' option (ipoib.runtime's JsonText.FLAG; this bundle does not import ipoib.runtime). */
    private static final String JSON = "--json";
    private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("HH:mm:ss.SSS").withZone(ZoneOffset.UTC);

    private final LogReaderService reader;
    private final LoggerAdmin loggerAdmin;
    private final FrameworkEventGate frameworkEvents;
    private final PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    private final JulBridge jul = new JulBridge();
    private volatile LogLevel projectLevel;
    private volatile LogLevel frameworkLevel;

    @Activate
    public ConsoleLog(BundleContext context, @Reference LogReaderService reader, @Reference LoggerAdmin loggerAdmin,
                      @Reference FrameworkEventGate frameworkEvents) {
        this.reader = reader;
        this.loggerAdmin = loggerAdmin;
        this.frameworkEvents = frameworkEvents;
        this.projectLevel = parseStartupLevel(LEVEL_PROPERTY, context.getProperty(LEVEL_PROPERTY));
        this.frameworkLevel = parseStartupLevel(FRAMEWORK_PROPERTY, context.getProperty(FRAMEWORK_PROPERTY));
        applyThresholds();
        reader.addLogListener(this);
        jul.install();
    }

    @Deactivate
    void deactivate() {
        reader.removeLogListener(this);
        jul.uninstall();
    }

    /** The thresholds a user sets, as the usage and the README list them. */
    private static final List<LogLevel> LEVELS = List.of(LogLevel.ERROR, LogLevel.WARN, LogLevel.INFO, LogLevel.DEBUG,
            LogLevel.TRACE);

    /**
     * The level named by {@code text} (case-insensitive); IllegalArgumentException names the
     * allowed ones. OSGi's AUDIT is not a threshold: its messages are always written.
     */
    static LogLevel parseLevel(String text) {
        String name = text.strip().toUpperCase(Locale.ROOT);
        for (LogLevel level : LEVELS) {
            if (level.name().equals(name)) {
                return level;
            }
        }
        throw new IllegalArgumentException("log level '" + text + "': allowed ERROR, WARN, INFO, DEBUG, TRACE");
    }

    private static LogLevel parseStartupLevel(String property, String text) {
        if (text == null || text.isBlank()) {
            return LogLevel.WARN;
        }
        try {
            return parseLevel(text);
        } catch (IllegalArgumentException e) {
            System.err.println("ipoib: invalid " + property + ": " + e.getMessage() + "; using WARN");
            return LogLevel.WARN;
        }
    }

    /** A threshold's framework property as the start uses it: WARN when unset or invalid (said once, here). */
    static LogLevel startupLevel(String text) {
        try {
            return text == null || text.isBlank() ? LogLevel.WARN : parseLevel(text);
        } catch (IllegalArgumentException e) {
            return LogLevel.WARN;
        }
    }

    @Descriptor("show or set the log level written to stderr: the project's bundles, or with 'framework' the "
            + "framework's events and the runtime bundles")
    public String log(@Descriptor("[level] | framework <level> | --json") String... args) {
        if (Arrays.asList(args).contains(JSON)) {
            if (args.length > 1) {
                throw new IllegalArgumentException("--json shows the levels; setting one takes no --json\nusage: " + USAGE);
            }
            // The level names are plain words: nothing to escape.
            return "{\"level\":\"" + projectLevel + "\",\"framework\":\"" + frameworkLevel + "\"}";
        }
        if (args.length == 1 && !args[0].equals("framework")) {
            projectLevel = level(args[0]);
        } else if (args.length == 2 && args[0].equals("framework")) {
            frameworkLevel = level(args[1]);
        } else if (args.length != 0) {
            throw new IllegalArgumentException("expected a level, or 'framework' and a level\nusage: " + USAGE);
        }
        applyThresholds();
        return LEVEL_PROPERTY + " " + projectLevel + "  " + FRAMEWORK_PROPERTY + " " + frameworkLevel;
    }

    private static LogLevel level(String text) {
        try {
            return parseLevel(text);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(e.getMessage() + "\nusage: " + USAGE);
        }
    }

    /** Lets through the OSGi Logger (root context) and java.util.logging what either threshold wants. */
    private void applyThresholds() {
        frameworkEvents.threshold(frameworkLevel);
        LogLevel lowest = projectLevel.ordinal() > frameworkLevel.ordinal() ? projectLevel : frameworkLevel;
        LoggerContext root = loggerAdmin.getLoggerContext(null);
        Map<String, LogLevel> levels = new HashMap<>(root.getLogLevels());
        levels.put(Logger.ROOT_LOGGER_NAME, lowest);
        root.setLogLevels(levels);
        jul.threshold(toJul(lowest));
    }

    private boolean wanted(boolean project, LogLevel level) {
        return (project ? projectLevel : frameworkLevel).implies(level);
    }

    @Override
    public void logged(LogEntry entry) {
        String bsn = entry.getBundle() == null ? "?" : entry.getBundle().getSymbolicName();
        // Bundle, service and framework events are logged under the bundle they concern.
        String logger = entry.getLoggerName();
        boolean project = bsn.startsWith("ipoib.") && (logger == null || !logger.startsWith("Events."));
        if (!wanted(project, entry.getLogLevel())) {
            return;
        }
        print(entry.getTime(), entry.getLogLevel(), bsn, entry.getMessage(), entry.getException());
    }

    private void print(long time, LogLevel level, String source, String message, Throwable exception) {
        StringBuilder line = new StringBuilder(128)
                .append(TIME.format(Instant.ofEpochMilli(time))).append(' ')
                .append(level).append(' ').append(source).append(": ").append(message);
        if (exception != null) {
            line.append(" (").append(exception).append(')');
        }
        PromptLine.above(err, line.toString());
    }

    static Level toJul(LogLevel level) {
        return switch (level) {
            case AUDIT, ERROR -> Level.SEVERE;
            case WARN -> Level.WARNING;
            case INFO -> Level.INFO;
            case DEBUG -> Level.FINE;
            case TRACE -> Level.FINEST;
        };
    }

    static LogLevel fromJul(Level level) {
        int v = level.intValue();
        if (v >= Level.SEVERE.intValue()) {
            return LogLevel.ERROR;
        } else if (v >= Level.WARNING.intValue()) {
            return LogLevel.WARN;
        } else if (v >= Level.INFO.intValue()) {
            return LogLevel.INFO;
        } else if (v >= Level.FINER.intValue()) {
            return LogLevel.DEBUG;
        }
        return LogLevel.TRACE;
    }

    /**
     * Routes java.util.logging's root logger here instead of its own console handler, which
     * would print INFO in another format whatever the thresholds say.
     */
    private final class JulBridge extends Handler {
        private final java.util.logging.Logger root = java.util.logging.Logger.getLogger("");
        private Handler[] previous = new Handler[0];
        private Level previousLevel;

        void install() {
            previous = root.getHandlers();
            previousLevel = root.getLevel();
            for (Handler h : previous) {
                root.removeHandler(h);
            }
            root.addHandler(this);
        }

        void uninstall() {
            root.removeHandler(this);
            for (Handler h : previous) {
                root.addHandler(h);
            }
            root.setLevel(previousLevel);
        }

        void threshold(Level level) {
            root.setLevel(level);
        }

        @Override
        public void publish(LogRecord record) {
            String name = record.getLoggerName() == null ? "?" : record.getLoggerName();
            LogLevel level = fromJul(record.getLevel());
            if (!wanted(name.startsWith("ipoib."), level)) {
                return;
            }
            String message = record.getMessage();
            if (record.getParameters() != null && message != null && message.contains("{")) {
                message = java.text.MessageFormat.format(message, record.getParameters());
            }
            print(record.getMillis(), level, name, message, record.getThrown());
        }

        @Override
        public void flush() {
            err.flush();
        }

        @Override
        public void close() {
        }
    }
}
