package ipoib.verbs.loopback.fabric;

import ipoib.api.sa.SaStatus;

/** A subnet administration request the emulated SA refuses, with the MAD status to answer. */
public final class SaStatusException extends Exception {
    private static final long serialVersionUID = 1L;
    private final int status;

    SaStatusException(int status, String detail) {
        super(SaStatus.describe(status) + ": " + detail, null, false, false);
        this.status = status;
    }

    public int status() {
        return status;
    }
}
