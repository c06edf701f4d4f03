package ipoib.launcher;

import java.io.BufferedReader;
import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * Script mode of the appliance. When the framework property {@value #SCRIPT_PROPERTY} names a
 * file (or is {@code -} for stdin), the commands in it run once the framework has reached its
 * final start level (so every component of the run is active), each echoed with a {@code g!}
 * prompt. Lines are read as they come and each command runs as soon as its last line has
 * arrived, as bash runs a script from a pipe: a program can steer the appliance through its
 * stdin. The JVM then exits with 0 at the end of input, with the status of {@code exit [n]}, or
 * with 1 after the first failing command, whose error is printed to stderr as
 * {@code ipoib: NAME line N: command failed: ...}, NAME being {@value #NAME_PROPERTY} when given
 * (the {@code ipoib} script passes {@code stdin} for piped commands), else the file's name.
 */
@Component(immediate = true, service = {})
public final class ScriptRunner {

    /** Framework property naming the script to run; {@code -} reads it from stdin. */
    public static final String SCRIPT_PROPERTY = "ipoib.script";
    /** Framework property: the script's name in error messages. */
    public static final String NAME_PROPERTY = "ipoib.script.name";
    /** Framework property: when "false", do not exit the JVM after the script (for tests). */
    public static final String EXIT_PROPERTY = "ipoib.script.exit";

    /** Framework property: when "true", print the stack trace of a failing command. */
    public static final String TRACE_PROPERTY = "ipoib.script.trace";

    private final CommandProcessor processor;
    private final BundleContext context;
    private final String script;
    private final AfterStartup gate;

    @Activate
    public ScriptRunner(BundleContext context, @Reference CommandProcessor processor) {
        this.context = context;
        this.processor = processor;
        this.script = context.getProperty(SCRIPT_PROPERTY);
        this.gate = script == null || script.isBlank() ? null : AfterStartup.run(context, "ipoib-script", this::runAndExit,
                this::notRun);
    }

    @Deactivate
    void deactivate() {
        if (gate != null) {
            gate.close();
        }
    }

    /** The shell never became ready: the script does not run, and the appliance ends as a failed script does. */
    private void notRun(String why) {
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        String name = context.getProperty(NAME_PROPERTY);
        String shown = name != null ? name : script.equals("-") ? "stdin" : String.valueOf(Path.of(script).getFileName());
        err.println("ipoib: " + shown + ": not run: " + why);
        if (!"false".equals(context.getProperty(EXIT_PROPERTY))) {
            System.exit(1);
        }
    }

    private void runAndExit() {
        // Gogo replaces System.out/err with per-thread streams that would feed back into the
        // session; write to the process's own descriptors instead.
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        String name = context.getProperty(NAME_PROPERTY);
        int status;
        if (script.equals("-")) {
            status = run(() -> new BufferedReader(new InputStreamReader(new FileInputStream(FileDescriptor.in),
                    StandardCharsets.UTF_8)), name == null ? "stdin" : name, out, err);
        } else {
            Path file = Path.of(script);
            status = run(() -> Files.newBufferedReader(file, StandardCharsets.UTF_8),
                    name == null ? String.valueOf(file.getFileName()) : name, out, err);
        }
        if (!"false".equals(context.getProperty(EXIT_PROPERTY))) {
            System.exit(status);
        }
    }

    /** Opens a script's lines. */
    interface Source {
        BufferedReader open() throws IOException;
    }

    /** Runs the script's commands as their lines arrive; returns the exit status. */
    int run(Source source, String name, PrintStream out, PrintStream err) {
        CommandSession session = processor.createSession(InputStream.nullInputStream(), out, err);
        ApplianceSession.prepare(session, context);
        ScriptParser parser = new ScriptParser();
        try (BufferedReader lines = source.open()) {
            while (true) {
                String line = lines.readLine();
                ScriptParser.Command command = line == null ? parser.end() : parser.line(line);
                if (command != null) {
                    int status = execute(session, command, name, out, err);
                    if (status >= 0) {
                        return status;
                    }
                }
                if (line == null) {
                    return 0;
                }
            }
        } catch (IOException e) {
            err.println("ipoib: cannot read script " + name + ": " + e);
            return 2;
        } finally {
            session.close();
        }
    }

    /** Runs one command; returns the status the script ends with, or -1 to go on. */
    private int execute(CommandSession session, ScriptParser.Command command, String name, PrintStream out,
            PrintStream err) {
        out.println("g! " + command.text());
        try {
            Object result = session.execute(command.text());
            if (LineResult.shown(command.text(), result)) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return -1;
        } catch (Exception e) {
            ExitCommand.Request exit = ExitCommand.requested(e);
            if (exit != null) {
                return exit.status();
            }
            out.flush();
            err.println("ipoib: " + name + " line " + command.line() + ": command failed: " + command.text());
            err.println("  " + CommandUsage.describe(session, command.text(), e));
            if (Boolean.parseBoolean(context.getProperty(TRACE_PROPERTY))) {
                e.printStackTrace(err);
            }
            return 1;
        }
    }

    /** The message a user needs: the first one in the cause chain past reflection's wrappers. */
    static String describe(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && (t.getMessage() == null || t instanceof java.lang.reflect.InvocationTargetException)) {
            t = t.getCause();
        }
        String message = t.getMessage();
        return message == null ? t.getClass().getName() : message;
    }
}
