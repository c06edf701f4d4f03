package ipoib.launcher;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;

/**
 * The forms of one command as its service declares them for completion, and what Tab offers
 * after the command's name. A form is the function's name and its words, one per position:
 * a literal ({@code flush}), alternatives ({@code on|off}), {@code <interface>} (a running
 * interface's name) or another {@code <placeholder>} (any word; nothing offered), and flags
 * ({@code --json}) that may come anywhere after the name.
 */
final class CommandForms {
    /**
     * The property of a Gogo command service that declares its forms: one entry per form,
     * e.g. {@code "links <interface> --json"} or {@code "neigh flush <interface>"}.
     */
    static final String PROPERTY = "ipoib.command.completion";
    static final String INTERFACE = "<interface>";

    private record Form(List<List<String>> positions, List<String> flags) {}

    private final List<Form> forms;

    private CommandForms(List<Form> forms) {
        this.forms = forms;
    }

    /**
     * The forms of {@code function} among {@code entries} (a service's property: entries of
     * other functions are skipped).
     *
     * @throws IllegalArgumentException for an entry that is blank or has an empty alternative
     */
    static CommandForms of(String function, Collection<String> entries) {
        List<Form> forms = new ArrayList<>();
        for (String entry : entries) {
            String[] words = entry.strip().split("\\s+");
            if (words[0].isEmpty()) {
                throw new IllegalArgumentException("a completion form is blank: allowed '<function> <word>...'");
            }
            if (!words[0].equals(function)) {
                continue;
            }
            List<List<String>> positions = new ArrayList<>();
            List<String> flags = new ArrayList<>();
            for (String word : Arrays.asList(words).subList(1, words.length)) {
                if (word.startsWith("--")) {
                    flags.add(word);
                } else if (word.startsWith("|") || word.endsWith("|") || word.contains("||")) {
                    throw new IllegalArgumentException("completion form '" + entry + "' has an empty alternative in '"
                            + word + "': allowed words separated by '|'");
                } else {
                    positions.add(List.of(word.split("\\|")));
                }
            }
            forms.add(new Form(List.copyOf(positions), List.copyOf(flags)));
        }
        return new CommandForms(List.copyOf(forms));
    }

    boolean isEmpty() {
        return forms.isEmpty();
    }

    /**
     * The candidates for the word at the cursor, after the command's name and {@code typed} (the
     * words between them): from every form that {@code typed} fits, the words of the next
     * position, then the flags not typed yet; in the order of the forms, each once.
     *
     * @param interfaces the running interfaces' names, asked only when a form needs them
     */
    List<String> candidates(List<String> typed, Supplier<List<String>> interfaces) {
        List<String> words = typed.stream().filter(w -> !w.startsWith("--")).toList();
        Set<String> typedFlags = new LinkedHashSet<>(typed.stream().filter(w -> w.startsWith("--")).toList());
        Set<String> positional = new LinkedHashSet<>();
        Set<String> flags = new LinkedHashSet<>();
        for (Form form : forms) {
            if (!form.flags.containsAll(typedFlags) || !fits(form, words, interfaces)) {
                continue;
            }
            if (words.size() < form.positions.size()) {
                for (String word : form.positions.get(words.size())) {
                    if (word.equals(INTERFACE)) {
                        positional.addAll(interfaces.get());
                    } else if (!placeholder(word)) {
                        positional.add(word);
                    }
                }
            }
            form.flags.stream().filter(f -> !typedFlags.contains(f)).forEach(flags::add);
        }
        List<String> out = new ArrayList<>(positional);
        flags.stream().filter(f -> !positional.contains(f)).forEach(out::add);
        return out;
    }

    private static boolean fits(Form form, List<String> words, Supplier<List<String>> interfaces) {
        if (words.size() > form.positions.size()) {
            return false;
        }
        for (int i = 0; i < words.size(); i++) {
            String word = words.get(i);
            boolean fits = false;
            for (String allowed : form.positions.get(i)) {
                fits |= allowed.equals(INTERFACE) ? interfaces.get().contains(word)
                        : placeholder(allowed) || allowed.equals(word);
            }
            if (!fits) {
                return false;
            }
        }
        return true;
    }

    private static boolean placeholder(String word) {
        return word.startsWith("<") && word.endsWith(">");
    }
}
