package ipoib.api.sa;

/**
 * A subnet administration request that failed: the SA answered with an error status, or no
 * answer came within the retries ({@link #isTimeout()}).
 */
public class SaException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;
    private final boolean timeout;

    public SaException(String request, int status) {
        super(request + " failed: SA status " + SaStatus.describe(status));
        this.status = status;
        this.timeout = false;
    }

    private SaException(String message) {
        super(message);
        this.status = -1;
        this.timeout = true;
    }

    /** A request that got no answer. */
    public static SaException timeout(String request, int attempts, long timeoutMillis) {
        return new SaException(request + " failed: no answer after " + attempts + " attempts of " + timeoutMillis + " ms");
    }

    /** The MAD status ({@link SaStatus}), or -1 for a timeout. */
    public int status() {
        return status;
    }

    public boolean isTimeout() {
        return timeout;
    }
}
