package ipoib.link.internal;

import ipoib.api.verbs.CompletionQueue;
import ipoib.link.internal.cm.CmReceiveThread;
import ipoib.runtime.Threads;

/**
 * The life of a daemon thread that polls one completion queue until it is stopped, shared by the
 * link's receive threads ({@link ReceiveLoop}, {@link CmReceiveThread}): the loop reads
 * {@link #running()} (one volatile read, nothing allocated); {@link #stop} clears it, wakes the
 * queue so that a thread waiting in {@code await} sees it at once, and waits up to two seconds
 * for the thread to end (not when the thread stops itself). When the queue's wait parks
 * ({@link CompletionQueue#awaitParks()}, the loopback fabric) the thread is a virtual one: an
 * appliance of hundreds of interfaces then polls their queues on one carrier thread per CPU, as
 * NAPI polls many devices from one softirq per CPU; a queue whose wait is a native call (the
 * hardware provider's {@code poll(2)} on the completion channel) keeps a platform thread, which
 * that call would otherwise hold as a carrier (as does every queue with the system property
 * {@link Threads#VIRTUAL_PROPERTY} {@code false}).
 */
public final class PollingThread {
    private final CompletionQueue cq;
    private final Thread thread;
    private final boolean shared;
    private volatile boolean running = true;

    public PollingThread(String name, CompletionQueue cq, Runnable pollLoop) {
        this.cq = cq;
        this.shared = cq.awaitParks() && Threads.virtualLoops();
        this.thread = shared ? Threads.createVirtual(name, pollLoop) : Threads.create(name, true, pollLoop);
    }

    /**
     * After a poll that used its whole budget: a virtual poller lets the other pollers of its
     * carrier run before it polls again (NAPI puts a device that used its budget at the end of
     * the CPU's poll list, net/core/dev.c {@code napi_poll}); a platform thread polls on at once.
     */
    public void budgetUsed() {
        if (shared) {
            Thread.yield();
        }
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
