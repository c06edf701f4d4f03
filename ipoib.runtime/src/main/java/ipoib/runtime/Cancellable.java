package ipoib.runtime;

/** A scheduled task that can still be called off. */
@FunctionalInterface
public interface Cancellable {

    /** Nothing to cancel. */
    Cancellable NONE = () -> {};

    /** Calls the task off; no effect once it ran. */
    void cancel();
}
