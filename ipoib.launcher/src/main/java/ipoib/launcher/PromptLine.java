package ipoib.launcher;

import java.io.PrintStream;
import java.util.function.Consumer;

/**
 * The console's prompt line, shared by the console and the log: a log line that arrives while the
 * {@code g!} prompt waits for input is written below it, on a line of its own, and the prompt is
 * written again under it, so that the line is never appended to the prompt (or to what the user
 * is typing after it). The terminal's line editing holds what was typed, which the console cannot
 * read back: the prompt is repeated without it, as a shell does after a background job's output.
 * While the line editor reads (a terminal, {@link TerminalLineSource}) it holds the line being
 * typed and writes the log line above it itself ({@link #editing}).
 */
final class PromptLine {
    private static final Object LOCK = new Object();
    /** Where the prompt waiting for input was written, or null while none waits. */
    private static PrintStream shownOn;
    private static String shown;
    /** The line editor reading now, which writes a line above its prompt and what was typed; or null. */
    private static Consumer<String> editor;

    private PromptLine() {}

    /** Writes {@code prompt} to {@code out}; it waits for input until {@link #answered}. */
    static void prompt(PrintStream out, String prompt) {
        synchronized (LOCK) {
            out.print(prompt);
            out.flush();
            shownOn = out;
            shown = prompt;
        }
    }

    /** The user ended the line (the terminal moved to the next): the prompt no longer waits. */
    static void answered() {
        synchronized (LOCK) {
            shownOn = null;
            shown = null;
        }
    }

    /** The line editor's prompt waits for input (null: it no longer does); log lines go through {@code printAbove}. */
    static void editing(Consumer<String> printAbove) {
        synchronized (LOCK) {
            editor = printAbove;
        }
    }

    /** Writes {@code line} to {@code out} on a line of its own, below a waiting prompt, which is repeated. */
    static void above(PrintStream out, String line) {
        synchronized (LOCK) {
            if (editor != null) {
                editor.accept(line);
                return;
            }
            if (shownOn != null) {
                shownOn.println();
                shownOn.flush();
            }
            out.println(line);
            out.flush();
            if (shownOn != null) {
                shownOn.print(shown);
                shownOn.flush();
            }
        }
    }
}
