package ipoib.launcher;

import java.util.ArrayList;
import java.util.List;

/**
 * Splits a script into commands: one per line, a trailing backslash continues the line, blank
 * lines and lines starting with '#' are skipped.
 */
final class ScriptParser {
    private ScriptParser() {}

    /** A command and the line where it starts (1-based). */
    record Command(int line, String text) {}

    static List<Command> parse(String script) {
        List<Command> commands = new ArrayList<>();
        StringBuilder pending = new StringBuilder();
        int start = 0;
        String[] lines = script.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i];
            if (pending.isEmpty()) {
                String t = line.strip();
                if (t.isEmpty() || t.startsWith("#")) {
                    continue;
                }
                start = i + 1;
            }
            String stripped = line.stripTrailing();
            if (stripped.endsWith("\\")) {
                pending.append(stripped, 0, stripped.length() - 1).append(' ');
                continue;
            }
            pending.append(line);
            commands.add(new Command(start, pending.toString().strip()));
            pending.setLength(0);
        }
        if (!pending.isEmpty()) {
            commands.add(new Command(start, pending.toString().strip()));
        }
        return commands;
    }
}
