package ipoib.link.internal;

import ipoib.api.verbs.CompletionQueue;
import ipoib.link.internal.cm.CmReceiveThread;
import ipoib.runtime.Threads;

/**
 * The life of a daemon thread that polls one completion queue until it is stopped, shared by the
 * link's receive threads ({@link ReceiveLoop}, {@link CmReceiveThread}): the loop reads
 * {@link #running()} (one volatile read, nothing allocated); {@link #stop} clears it, wakes the
 * queue so that a thread waiting in {@code await} sees it at once, and waits up to two seconds
 * for the thread to end (not when the thread stops itself).
 */
public final class PollingThread {
    private final CompletionQueue cq;
    private final Thread thread;
    private volatile boolean running = true;

    public PollingThread(String name, CompletionQueue cq, Runnable pollLoop) {
        this.cq = cq;
        this.thread = Threads.create(name, true, pollLoop);
    }

    public void start() {
        thread.start();
    }

    /** False once {@link #stop} was called: the loop ends at its next check. */
    public boolean running() {
        return running;
    }

    /** Stops the thread (waiting up to two seconds for it). */
    public void stop() {
        running = false;
        try {
            cq.wakeup();
        } catch (RuntimeException ignored) {
            // The provider is gone; the thread ends on its own at its next await's timeout.
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(2000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
