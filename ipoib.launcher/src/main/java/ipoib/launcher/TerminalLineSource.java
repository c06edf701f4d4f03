package ipoib.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.apache.felix.service.command.CommandSession;
import org.jline.reader.Completer;
import org.jline.reader.EndOfFileException;
import org.jline.reader.LineReader;
import org.jline.reader.LineReaderBuilder;
import org.jline.reader.UserInterruptException;
import org.jline.terminal.Terminal;
import org.jline.terminal.TerminalBuilder;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * The console at a terminal: JLine's line editor with Tab completion ({@link CommandCompleter})
 * and a history that Up and Down recall, kept in {@code ~/.ipoib/history} (the last
 * {@value #HISTORY_LINES} lines, written as each line is entered, readable by the user only; a
 * line naming a password is not kept). JLine only reads the lines:
 * the console still runs each as a top-level Gogo job, so memory stays flat.
 */
final class TerminalLineSource implements LineSource {
    static final int HISTORY_LINES = 1000;

    private final Terminal terminal;
    private final LineReader reader;

    /**
     * The JVM's signal handling is left alone (no native signals): Ctrl-C at the prompt is a key
     * the editor reads (the line is dropped, as bash does); while a command runs the terminal is
     * back in its own mode and Ctrl-C is SIGINT, which ends the appliance through the launcher's
     * shutdown hook that removes its namespaces.
     */
    TerminalLineSource(Completer completer, Path history) throws IOException {
        this.terminal = systemTerminal();
        this.reader = LineReaderBuilder.builder().terminal(terminal).appName("ipoib").completer(completer)
                .variable(LineReader.HISTORY_FILE, history)
                .variable(LineReader.HISTORY_SIZE, HISTORY_LINES)
                .variable(LineReader.HISTORY_FILE_SIZE, HISTORY_LINES)
                // A line that sets the console's password (ipoib:config ipoib.console ... password ...) is not kept.
                .variable(LineReader.HISTORY_IGNORE, "*password*")
                // '!' and '^' are Gogo's, not history expansion; pasted lines run one by one.
                .option(LineReader.Option.DISABLE_EVENT_EXPANSION, true)
                .option(LineReader.Option.BRACKETED_PASTE, false)
                .option(LineReader.Option.HISTORY_IGNORE_SPACE, false)
                .build();
    }

    /**
     * JLine finds its terminal providers (FFM, exec) as resources of the context class loader:
     * in a framework that is JLine's bundle's. Without one it fails rather than fall back to a
     * dumb terminal, so that the console reads plain lines instead.
     */
    private static Terminal systemTerminal() throws IOException {
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        thread.setContextClassLoader(Terminal.class.getClassLoader());
        try {
            return TerminalBuilder.builder().system(true).dumb(false).nativeSignals(false)
                    .encoding(StandardCharsets.UTF_8).build();
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    /** The editor for {@code session}: the registered commands, their declared arguments and the running interfaces complete. */
    static LineSource open(CommandSession session, BundleContext context) throws IOException {
        RegisteredCommands registered = new RegisteredCommands(context);
        return new TerminalLineSource(new CommandCompleter(registered::now, () -> commands(session),
                () -> interfaceNames(context)), historyFile());
    }

    @SuppressWarnings("unchecked")
    private static Set<String> commands(CommandSession session) {
        Object commands = session.get(".commands"); // gogo.runtime's CommandSessionImpl.COMMANDS
        return commands instanceof Set<?> set ? (Set<String>) set : Set.of();
    }

    /** The interfaces' names, from their services' properties (this bundle does not import the API). */
    private static List<String> interfaceNames(BundleContext context) {
        try {
            ServiceReference<?>[] links = context.getServiceReferences("ipoib.api.link.IpoibLink", null);
            if (links == null) {
                return List.of();
            }
            return Arrays.stream(links).map(r -> r.getProperty("ipoib.link")).filter(String.class::isInstance)
                    .map(String.class::cast).sorted().toList();
        } catch (InvalidSyntaxException | IllegalStateException e) {
            return List.of();
        }
    }

    /** Whether stdin and stdout are a terminal the editor can drive (not {@code TERM=dumb}). */
    static boolean usable() {
        String term = System.getenv("TERM");
        return System.console() != null && System.console().isTerminal() && term != null && !term.isBlank()
                && !term.startsWith("dumb");
    }

    /** {@code ~/.ipoib/history}, it and its directory made owner-only when they are new. */
    static Path historyFile() throws IOException {
        Path directory = Path.of(System.getProperty("user.home"), ".ipoib");
        if (!Files.isDirectory(directory)) {
            Files.createDirectories(directory,
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path history = directory.resolve("history");
        if (!Files.exists(history, LinkOption.NOFOLLOW_LINKS)) {
            // JLine appends to the file and replaces it, when trimmed, by an owner-only temporary file.
            try {
                Files.createFile(history, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
            } catch (FileAlreadyExistsException anotherApplianceMadeIt) {
                // Its history is the same user's.
            }
        }
        return history;
    }

    @Override
    public String readLine() {
        PromptLine.editing(reader::printAbove);
        try {
            return reader.readLine(InteractiveConsole.PROMPT);
        } catch (UserInterruptException e) {
            return "";
        } catch (EndOfFileException e) {
            return null;
        } finally {
            PromptLine.editing(null);
        }
    }

    @Override
    public void close() {
        try {
            reader.getHistory().save();
            terminal.close();
        } catch (IOException e) {
            // Leaving: the history was written line by line already.
        }
    }
}
