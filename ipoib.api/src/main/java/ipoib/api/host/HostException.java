package ipoib.api.host;

import ipoib.api.link.TransmitResult;

/**
 * A packet the host layer could not send: no route to the destination, or the link or resolver
 * dropped it ({@link #result()} says how).
 */
public class HostException extends Exception {
    private static final long serialVersionUID = 1L;
    private final transient TransmitResult result;

    public HostException(String message, TransmitResult result) {
        super(message);
        this.result = result;
    }

    /** The drop result, e.g. {@link TransmitResult#DROPPED_NO_RESOLVER}. */
    public TransmitResult result() {
        return result;
    }
}
