package ipoib.cm;

/** A connection that could not be set up: rejected by the peer (with its reason), or timed out. */
public final class CmException extends RuntimeException {
    private static final long serialVersionUID = 1L;
    private final int rejectReason;

    CmException(String message, int rejectReason) {
        super(message);
        this.rejectReason = rejectReason;
    }

    /** The reason code of IBA table 109 (the peer's, or {@code CmRej.TIMEOUT} for a local timeout). */
    public int rejectReason() {
        return rejectReason;
    }
}
