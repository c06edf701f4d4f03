package ipoib.launcher;

/**
 * Joins a script's lines into commands, one line at a time, so that a command can run as soon
 * as its last line has arrived (as bash runs a script read from a pipe): one command per line, a
 * trailing backslash continues it on the next line, blank lines and lines starting with '#' are
 * skipped.
 */
final class ScriptParser {

    /** A command and the line where it starts (1-based). */
    record Command(int line, String text) {}

    private final StringBuilder pending = new StringBuilder();
    private int lines;
    private int start;

    /** Takes the next line; returns the command it completes, or null (blank, comment, continued). */
    Command line(String line) {
        lines++;
        if (pending.isEmpty()) {
            String t = line.strip();
            if (t.isEmpty() || t.startsWith("#")) {
                return null;
            }
            start = lines;
        }
        String stripped = line.stripTrailing();
        if (stripped.endsWith("\\")) {
            pending.append(stripped, 0, stripped.length() - 1).append(' ');
            return null;
        }
        pending.append(line);
        return take();
    }

    /** At the end of input: the command a last continued line left open, or null. */
    Command end() {
        return pending.isEmpty() ? null : take();
    }

    private Command take() {
        Command command = new Command(start, pending.toString().strip());
        pending.setLength(0);
        return command;
    }
}
