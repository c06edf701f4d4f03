package ipoib.launcher;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/**
 * Lines read from stdin as they come, for a stream that is not a terminal the line editor can
 * drive ({@code TERM=dumb}, an editor's shell buffer): the terminal's own line editing, no
 * completion, no history, no escape codes.
 */
final class PlainLineSource implements LineSource {
    private final InputStream in;
    private final PrintStream out;

    PlainLineSource(InputStream in, PrintStream out) {
        this.in = in;
        this.out = out;
    }

    @Override
    public String readLine() throws IOException {
        PromptLine.prompt(out, InteractiveConsole.PROMPT);
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        while (true) {
            int c = in.read();
            if (c == -1 || (c == 4 && bytes.size() == 0)) {
                PromptLine.answered();
                out.println();
                return bytes.size() == 0 ? null : bytes.toString(StandardCharsets.UTF_8);
            }
            if (c == '\n') {
                PromptLine.answered();
                return bytes.toString(StandardCharsets.UTF_8).replace("\r", "");
            }
            bytes.write(c);
        }
    }

    @Override
    public void close() {
        // stdin belongs to the process.
    }
}
