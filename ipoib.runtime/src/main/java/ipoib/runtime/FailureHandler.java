package ipoib.runtime;

/** Where a control loop reports a task that threw: the engine's log. */
@FunctionalInterface
public interface FailureHandler {

    /** Prints to stderr: for tests and tools without a log. */
    FailureHandler STDERR = (message, failure) -> {
        System.err.println(message);
        failure.printStackTrace();
    };

    void failed(String message, Throwable failure);
}
