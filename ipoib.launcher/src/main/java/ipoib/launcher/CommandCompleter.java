package ipoib.launcher;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;

/**
 * Tab at the console: the first word completes to a registered command ({@code ipoib:li} to
 * {@code ipoib:links}; with its scope or without), the next ones to what the command's service
 * declares ({@link CommandForms}).
 */
final class CommandCompleter implements Completer {
    /** The scopes Gogo finds a command typed without one in first: the project's. */
    private static final List<String> FIRST_SCOPES = List.of("ipoib", "fabric", "verbs");

    private final Supplier<Map<String, CommandForms>> registered;
    private final Supplier<Set<String>> sessionCommands;
    private final Supplier<List<String>> interfaces;

    /**
     * @param registered the command services' functions and forms ({@link RegisteredCommands#now}), asked at each Tab
     * @param sessionCommands every command the Gogo session knows as {@code scope:function}, its own
     *        built-ins included (they are not services)
     * @param interfaces the running interfaces' names
     */
    CommandCompleter(Supplier<Map<String, CommandForms>> registered, Supplier<Set<String>> sessionCommands,
                     Supplier<List<String>> interfaces) {
        this.registered = registered;
        this.sessionCommands = sessionCommands;
        this.interfaces = interfaces;
    }

    @Override
    public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
        for (String word : words(line.words(), line.wordIndex())) {
            candidates.add(new Candidate(word));
        }
    }

    /** The candidates for word {@code index} of {@code words} (the word at the cursor included). */
    List<String> words(List<String> words, int index) {
        Map<String, CommandForms> commands = registered.get();
        if (index == 0) {
            Set<String> names = new TreeSet<>();
            Set<String> all = new TreeSet<>(commands.keySet());
            all.addAll(sessionCommands.get());
            for (String command : all) {
                names.add(command);
                names.add(command.substring(command.indexOf(':') + 1));
            }
            return List.copyOf(names);
        }
        CommandForms forms = commands.get(scoped(words.get(0), commands));
        return forms == null ? List.of() : forms.candidates(words.subList(1, index), interfaces);
    }

    /** A command typed without its scope, as Gogo finds it: the project's scopes first. */
    private static String scoped(String command, Map<String, CommandForms> commands) {
        if (command.contains(":")) {
            return command;
        }
        for (String scope : FIRST_SCOPES) {
            if (commands.containsKey(scope + ":" + command)) {
                return scope + ":" + command;
            }
        }
        return commands.keySet().stream().filter(c -> c.endsWith(":" + command)).findFirst().orElse(command);
    }
}
