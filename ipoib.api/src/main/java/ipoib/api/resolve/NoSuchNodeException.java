package ipoib.api.resolve;

/** Resolution of a destination failed. */
public class NoSuchNodeException extends Exception {
    private static final long serialVersionUID = 1L;

    public NoSuchNodeException(String message) {
        super(message);
    }
}
