package ipoib.launcher;

import java.io.FileDescriptor;
import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.apache.felix.service.command.CommandProcessor;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Converter;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The appliance's interactive Gogo console ({@code g!} prompt on stdin/stdout), on when the
 * framework property {@value #CONSOLE_PROPERTY} is "true" and no script runs.
 *
 * <p>Why not gogo.shell's console: gogo.shell runs its console inside the job of the
 * {@code gosh} command, so every command typed becomes a child job of that job, and Gogo
 * runtime 1.1.x never removes child jobs (CommandSessionImpl.createJob adds to the parent's
 * {@code children}; only top-level jobs leave the session's list when done). Each command kept
 * about 37 KB (the job, its pipes, closures and output buffers) for the life of the console.
 * This console executes each line from its own thread, outside any job, so each command is a
 * top-level job that Gogo forgets when it is done: memory stays flat however long it is used.
 * gogo.shell still provides its commands (started with {@code gosh.args=--nointeractive}).
 * The lines come from JLine's line editor at a terminal ({@link TerminalLineSource}: completion,
 * history), else as they arrive ({@link PlainLineSource}).
 */
@Component(immediate = true, service = {})
public final class InteractiveConsole {

    /** Framework property: "true" starts this console (set by the appliance's bndrun). */
    public static final String CONSOLE_PROPERTY = "ipoib.shell.console";

    /** What gogo.shell's gosh_profile sets up for its console: exit, BundleContext methods, $e. */
    private static final String[] PROFILE = {
        "SCOPE = 'gogo:*'",
        "addcommand context ${.context}",
        "addcommand system (((${.context} bundles) 0) loadclass java.lang.System)",
        "e = { $exception printStackTrace }",
    };

    private final CommandProcessor processor;
    private final BundleContext context;
    private final AfterStartup gate;
    private static final String THREAD = "ipoib-console";
    static final String PROMPT = "g! ";

    @Activate
    public InteractiveConsole(BundleContext context, @Reference CommandProcessor processor) {
        this.processor = processor;
        this.context = context;
        String script = context.getProperty(ScriptRunner.SCRIPT_PROPERTY);
        boolean on = "true".equals(context.getProperty(CONSOLE_PROPERTY)) && (script == null || script.isBlank())
                && !running();
        this.gate = on ? AfterStartup.run(context, THREAD, this::run, this::runWithoutShell) : null;
    }

    /**
     * The console belongs to the process, not to this component: a blocked read of stdin cannot
     * be interrupted, so when the bundle is updated or restarted the running console goes on
     * (its session still works) and a new activation does not start a second one that would
     * take every other line.
     */
    private static boolean running() {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.getName().equals(THREAD) && t.isAlive());
    }

    @Deactivate
    void deactivate() {
        if (gate != null) {
            gate.close();
        }
    }

    /** The project's commands work without gogo.shell's: the console starts, saying what is missing. */
    private void runWithoutShell(String why) {
        new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8).println("ipoib: " + why);
        run();
    }

    private void run() {
        InputStream in = new FileInputStream(FileDescriptor.in);
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
        CommandSession session = processor.createSession(in, out, err);
        Integer status = null;
        try {
            for (String line : PROFILE) {
                try {
                    session.execute(line);
                } catch (Exception e) {
                    err.println("ipoib: console set-up '" + line + "' failed: " + ScriptRunner.describe(e));
                }
            }
            ApplianceSession.prepare(session, context);
            out.println("ipoib appliance: Gogo shell; 'help' lists the commands, 'exit 0' or Ctrl-D leaves");
            try (LineSource lines = lineSource(session, in, out, err)) {
                String line;
                while (status == null && (line = lines.readLine()) != null) {
                    if (!line.isBlank()) {
                        status = execute(session, line, out);
                    }
                }
            }
        } catch (IOException e) {
            err.println("ipoib: console input failed: " + e);
        } finally {
            session.close();
        }
        exit(err, status == null ? 0 : status);
    }

    /** Runs one line; returns the status when it was {@code exit}, else null. */
    private static Integer execute(CommandSession session, String line, PrintStream out) {
        try {
            Object result = session.execute(line);
            session.put("_", result);
            if (LineResult.shown(line, result) && !Boolean.FALSE.equals(session.get(".Gogo.format"))) {
                out.println(session.format(result, Converter.INSPECT));
            }
            return null;
        } catch (Exception e) {
            ExitCommand.Request exit = ExitCommand.requested(e);
            if (exit != null) {
                return exit.status();
            }
            session.put("exception", e);
            out.println(errorLine(e, CommandUsage.describe(session, line, e)));
        }
        return null;
    }

    /**
     * How a failed command shows: a refusal the command stated (an IllegalArgumentException or
     * IllegalStateException, whose message says what was wrong and what is allowed) as
     * {@code error: <message>}; anything else with its exception's name, as Gogo's shell shows it.
     */
    static String errorLine(Exception e, String described) {
        boolean stated = e instanceof IllegalArgumentException || e instanceof IllegalStateException;
        return stated ? "error: " + described : "gogo: " + e.getClass().getSimpleName() + ": " + described;
    }

    /**
     * The line editor at a terminal; plain lines from a pipe, a dumb terminal, or when the editor
     * (JLine, an optional import) is missing or cannot take the terminal.
     */
    private LineSource lineSource(CommandSession session, InputStream in, PrintStream out, PrintStream err) {
        if (TerminalLineSource.usable()) {
            try {
                return TerminalLineSource.open(session, context);
            } catch (IOException | LinkageError | RuntimeException e) {
                err.println("ipoib: no line editing at this terminal (" + e + "); reading plain lines");
            }
        }
        return new PlainLineSource(in, out);
    }

    /**
     * {@code exit [status]}, or input ended (Ctrl-D, as {@code exit 0}). The launcher's shutdown
     * hook stops the framework; stopping it from here instead ends the launcher with a status of
     * its own.
     */
    private static void exit(PrintStream err, int status) {
        err.flush();
        System.exit(status);
    }
}
