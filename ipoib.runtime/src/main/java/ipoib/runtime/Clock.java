package ipoib.runtime;

/** Monotonic time in nanoseconds; injected so that tests move time by hand. */
@FunctionalInterface
public interface Clock {

    /** The system's monotonic clock. */
    Clock SYSTEM = System::nanoTime;

    /** Nanoseconds from an arbitrary origin; only differences mean something. */
    long nanoTime();

    /** Milliseconds on the same scale. */
    default long millis() {
        return nanoTime() / 1_000_000L;
    }
}
