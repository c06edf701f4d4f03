package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import java.util.concurrent.TimeUnit;

/**
 * A completion queue (IBA 11.2.7, 11.4.2). Completions of one queue pair arrive in the order
 * their work requests were posted.
 */
@ProviderType
public interface CompletionQueue extends AutoCloseable {

    /** Completions the queue holds before it overflows. */
    int capacity();

    /**
     * Moves up to {@code into.capacity()} completions into the batch (clearing it first). Never
     * blocks, never allocates.
     *
     * @return the number of completions polled
     */
    int poll(WorkCompletions into);

    /**
     * Waits until the queue holds a completion (the completion-channel wait of verbs). For the
     * one thread that drains the queue; the data path itself never calls it.
     *
     * @return true when completions are ready, false on timeout or {@link #wakeup()}
     * @throws InterruptedException when the waiting thread is interrupted
     */
    boolean await(long timeout, TimeUnit unit) throws InterruptedException;

    /**
     * Whether {@link #await} waits by parking the calling Java thread rather than in a native
     * call: a virtual thread may then wait in it without holding on to a carrier thread, so that
     * one carrier per CPU serves the pollers of many queues. False unless the provider says so.
     *
     * @since 1.2
     */
    default boolean awaitParks() {
        return false;
    }

    /** Makes a current {@link #await} return early (used to stop a poller thread). */
    void wakeup();

    @Override
    void close();
}
