package ipoib.launcher;

import java.io.IOException;

/** Where the interactive console's lines come from: a plain stream, or a line editor at a terminal. */
interface LineSource extends AutoCloseable {

    /** The next line after the {@code g!} prompt, or null at the end of input (Ctrl-D). */
    String readLine() throws IOException;

    @Override
    void close();
}
