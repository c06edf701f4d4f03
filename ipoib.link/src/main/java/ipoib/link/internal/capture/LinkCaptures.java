package ipoib.link.internal.capture;

import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Consumer;

/**
 * The {@code ipoib:capture} of one link: at most one running capture, read by the data path per
 * frame, and the last one kept for its summary after it ended.
 */
public final class LinkCaptures {
    private final String link;
    private final Consumer<String> info;
    /** The running capture, read by the send path and the receive thread per frame; null when none. */
    private volatile LinkCapture running;
    /** The last capture, for its summary after it ended. */
    private volatile LinkCapture last;

    public LinkCaptures(String link, Consumer<String> info) {
        this.link = link;
        this.info = info;
    }

    /** The running capture, or null: the data path's per-frame read. */
    public LinkCapture running() {
        return running;
    }

    /**
     * Starts capturing this link's frames to a pcapng file.
     *
     * @throws IllegalStateException when a capture is running
     * @throws IOException when the file cannot be opened
     */
    public synchronized LinkCapture start(Path file, long limit) throws IOException {
        LinkCapture current = running;
        if (current != null && current.isRunning()) {
            throw new IllegalStateException("a capture of " + link + " to " + current.file() + " is running");
        }
        LinkCapture[] self = new LinkCapture[1];
        LinkCapture started = new LinkCapture(link, file, limit, () -> ended(self[0]));
        self[0] = started;
        last = started;
        running = started;
        return started;
    }

    private synchronized void ended(LinkCapture capture) {
        if (running == capture) {
            running = null;
        }
        if (capture != null) {
            info.accept(capture.summary());
        }
    }

    /** Stops the running capture; its summary (or the last one's), or null when none ran. */
    public String stop() {
        LinkCapture c;
        synchronized (this) {
            c = running != null ? running : last;
            running = null;
        }
        if (c == null) {
            return null;
        }
        c.close();
        return c.summary();
    }

    /** The status of the running or last capture, or null. */
    public LinkCapture.Status status() {
        LinkCapture c = last;
        return c == null ? null : c.status();
    }

    /** The summary of the running or last capture, or null. */
    public String summary() {
        LinkCapture c = last;
        return c == null ? null : c.summary();
    }
}
