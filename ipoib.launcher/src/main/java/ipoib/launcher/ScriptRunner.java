package ipoib.launcher;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.util.tracker.ServiceTracker;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Script mode of the appliance. When the framework property {@value #SCRIPT_PROPERTY} names a
 * file, the commands in it run once the framework has reached its final start level (so every
 * component of the run is active), each echoed with a {@code g!} prompt. The JVM then exits
 * with 0, or with 1 after the first failing command, whose error is printed to stderr.
 */
@Component(immediate = true, service = {})
public final class ScriptRunner implements FrameworkListener {

    /** Framework property naming the script to run. */
    public static final String SCRIPT_PROPERTY = "ipoib.script";
    /** Framework property: when "false", do not exit the JVM after the script (for tests). */
    public static final String EXIT_PROPERTY = "ipoib.script.exit";

    /** Framework property: when "true", print the stack trace of a failing command. */
    public static final String TRACE_PROPERTY = "ipoib.script.trace";

    private static final long SHELL_COMMANDS_TIMEOUT_MS = 10_000;

    private final CommandProcessor processor;
    private final BundleContext context;
    private final String script;
    private volatile Thread runner;

    @Activate
    public ScriptRunner(BundleContext context, @Reference CommandProcessor processor) {
        this.context = context;
        this.processor = processor;
        this.script = context.getProperty(SCRIPT_PROPERTY);
        if (script == null || script.isBlank()) {
            return;
        }
        context.addFrameworkListener(this);
        if (startLevelReached()) {
            startRunner();
        }
    }

    /**
     * Felix marks the system bundle ACTIVE before it raises the start level, so the state alone
     * does not say that every bundle has started: compare the start level with its target.
     */
    private boolean startLevelReached() {
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION);
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        int target = beginning == null ? 1 : Integer.parseInt(beginning.strip());
        return system.getState() == Bundle.ACTIVE && system.adapt(FrameworkStartLevel.class).getStartLevel() >= target;
    }

    @Override
    public void frameworkEvent(FrameworkEvent event) {
        if (event.getType() == FrameworkEvent.STARTED) {
            startRunner();
        }
    }

    private synchronized void startRunner() {
        if (runner != null) {
            return;
        }
        runner = new Thread(this::runAndExit, "ipoib-script");
        runner.start();
    }

    @Deactivate
    void deactivate() {
        if (script != null) {
            context.removeFrameworkListener(this);
        }
    }

    private void runAndExit() {
        awaitShellCommands();
        // Gogo replaces System.out/err with per-thread streams that would feed back into the
        // session; write to the process's own descriptors instead.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        int status = run(Path.of(script), out, err);
        if (!"false".equals(context.getProperty(EXIT_PROPERTY))) {
            System.exit(status);
        }
    }

    /**
     * gogo.shell registers its commands (echo, grep, each, ...) from its own thread after it
     * started; wait for them a bounded time so that scripts can use them.
     */
    private void awaitShellCommands() {
        String filter = "(&(osgi.command.scope=gogo)(osgi.command.function=grep))";
        try {
            ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context, context.createFilter(filter), null);
            tracker.open();
            try {
                tracker.waitForService(SHELL_COMMANDS_TIMEOUT_MS);
            } finally {
                tracker.close();
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(filter, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Runs every command of the script; returns the exit status. */
    int run(Path file, PrintStream out, PrintStream err) {
        List<ScriptParser.Command> commands;
        try {
            commands = ScriptParser.parse(Files.readString(file, StandardCharsets.UTF_8));
        } catch (IOException e) {
            err.println("ipoib: cannot read script " + file + ": " + e);
            return 2;
        }
        CommandSession session = processor.createSession(InputStream.nullInputStream(), out, err);
        try {
            for (ScriptParser.Command command : commands) {
                out.println("g! " + command.text());
                try {
                    Object result = session.execute(command.text());
                    if (result != null) {
                        out.println(session.format(result, Converter.INSPECT));
                    }
                } catch (Exception e) {
                    out.flush();
                    err.println("ipoib: " + file.getFileName() + " line " + command.line() + ": command failed: "
                            + command.text());
                    err.println("  " + describe(e));
                    if (Boolean.parseBoolean(context.getProperty(TRACE_PROPERTY))) {
                        e.printStackTrace(err);
                    }
                    return 1;
                }
            }
            return 0;
        } finally {
            session.close();
        }
    }

    private static String describe(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && (t.getMessage() == null || t instanceof java.lang.reflect.InvocationTargetException)) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return message == null ? t.getClass().getName() : message;
    }
}
