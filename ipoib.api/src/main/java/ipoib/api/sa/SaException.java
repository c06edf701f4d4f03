package ipoib.api.sa;

/**
 * A subnet administration request that failed: the SA answered with an error status, no
 * answer came within the retries ({@link #isTimeout()}), or the request could not be sent at
 * all ({@link #isLocalFailure()}: the port is down, the transport closed).
 */
public class SaException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final boolean timeout;
    private final boolean local;

    public SaException(String request, int status) {
        super(request + " failed: SA status " + SaStatus.describe(status));
        this.status = status;
        this.timeout = false;
        this.local = false;
    }

    private SaException(String message, boolean timeout) {
        super(message);
        this.status = -1;
        this.timeout = timeout;
        this.local = !timeout;
    }

    /** A request that got no answer. */
    public static SaException timeout(String request, int attempts, long timeoutMillis) {
        return new SaException(request + " failed: no answer after " + attempts + " attempts of " + timeoutMillis
                + " ms", true);
    }

    /**
     * A request that never reached the SA: the local MAD transport refused it.
     *
     * @since 1.1
     */
    public static SaException notSent(String request, String reason) {
        return new SaException(request + " failed: not sent (local failure, no SA answer): " + reason, false);
    }

    /** The MAD status ({@link SaStatus}), or -1 for a timeout or a local failure. */
    public int status() {
        return status;
    }

    public boolean isTimeout() {
        return timeout;
    }

    /**
     * Whether the request failed here, before any SA saw it.
     *
     * @since 1.1
     */
    public boolean isLocalFailure() {
        return local;
    }
}
