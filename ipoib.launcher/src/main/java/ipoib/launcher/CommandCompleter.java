package ipoib.launcher;

import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.jline.reader.Candidate;
import org.jline.reader.Completer;
import org.jline.reader.LineReader;
import org.jline.reader.ParsedLine;

/**
 * Tab at the console: the first word completes to a command Gogo knows ({@code ipoib:li} to
 * {@code ipoib:links}; with its scope or without), the next ones to what {@link ArgumentCandidates}
 * offers for that command.
 */
final class CommandCompleter implements Completer {
    private final Supplier<Set<String>> commands;
    private final ArgumentCandidates arguments;

    /** @param commands Gogo's commands as {@code scope:function}, asked at each Tab */
    CommandCompleter(Supplier<Set<String>> commands, ArgumentCandidates arguments) {
        this.commands = commands;
        this.arguments = arguments;
    }

    @Override
    public void complete(LineReader reader, ParsedLine line, List<Candidate> candidates) {
        for (String word : words(line.words(), line.wordIndex())) {
            candidates.add(new Candidate(word));
        }
    }

    /** The candidates for word {@code index} of {@code words} (the word at the cursor included). */
    List<String> words(List<String> words, int index) {
        if (index == 0) {
            Set<String> names = new TreeSet<>();
            for (String command : commands.get()) {
                names.add(command);
                names.add(command.substring(command.indexOf(':') + 1));
            }
            return List.copyOf(names);
        }
        return arguments.of(words.get(0), index, words.get(index - 1));
    }
}
