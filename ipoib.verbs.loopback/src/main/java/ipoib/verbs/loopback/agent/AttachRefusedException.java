package ipoib.verbs.loopback.agent;

/** A client could not attach (ibsim answers {@code SIM_CTL_ERROR}): the message says why. */
public final class AttachRefusedException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public AttachRefusedException(String message) {
        super(message);
    }
}
