package ipoib.api.verbs;

/**
 * A verbs call that could not be carried out: a closed resource, an argument out of range, a
 * provider error (with its errno when there is one).
 */
public class VerbsException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int errno;

    public VerbsException(String message) {
        this(message, 0, null);
    }

    public VerbsException(String message, int errno, Throwable cause) {
        super(errno == 0 ? message : message + " (errno " + errno + ")", cause);
        this.errno = errno;
    }

    /** The operating-system error number behind this failure, or 0. */
    public int errno() {
        return errno;
    }
}
