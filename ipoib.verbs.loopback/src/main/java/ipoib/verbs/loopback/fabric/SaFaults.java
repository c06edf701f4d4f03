package ipoib.verbs.loopback.fabric;

import ipoib.api.sa.SaStatus;

/**
 * Fault injection of the emulated subnet administrator.
 *
 * @param dropPercent requests dropped without an answer
 * @param delayMillis every answer delayed this much
 * @param errorPercent requests answered with {@code errorStatus}
 * @param errorStatus the MAD status of injected errors (e.g. 0x0001 busy, 0x0100 no resources)
 * @param trapLossPercent trap reports (Notices) lost
 * @param rmppLossPercent RMPP DATA segments of answers lost on their way to the requester (the
 *                        ACKs coming back are subject to {@code dropPercent} as every request)
 */
public record SaFaults(int dropPercent, int delayMillis, int errorPercent, int errorStatus, int trapLossPercent,
                       int rmppLossPercent) {

    public static final SaFaults NONE = new SaFaults(0, 0, 0, SaStatus.BUSY, 0, 0);

    public SaFaults {
        percent(FaultKind.SA_DROP, dropPercent);
        percent(FaultKind.SA_ERROR, errorPercent);
        percent(FaultKind.TRAP_LOSS, trapLossPercent);
        percent(FaultKind.SA_RMPP_LOSS, rmppLossPercent);
        if (delayMillis < 0 || delayMillis > 60_000) {
            throw new IllegalArgumentException("invalid fault '" + FaultKind.SA_DELAY + "' value " + delayMillis
                    + ": allowed 0..60000 ms");
        }
        if (errorStatus <= 0 || errorStatus > 0xFFFF) {
            throw new IllegalArgumentException(String.format("invalid fault '%s' value 0x%x: allowed 0x0001..0xffff "
                    + "(a MAD status)", FaultKind.SA_STATUS, errorStatus));
        }
    }

    private static void percent(FaultKind kind, int value) {
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("invalid fault '" + kind + "' value " + value + ": allowed 0..100 (percent)");
        }
    }

    /** This setting with one of the SA's faults changed; a port's fault is refused. */
    public SaFaults with(FaultKind kind, int value) {
        return switch (kind) {
            case SA_DROP -> new SaFaults(value, delayMillis, errorPercent, errorStatus, trapLossPercent, rmppLossPercent);
            case SA_DELAY -> new SaFaults(dropPercent, value, errorPercent, errorStatus, trapLossPercent, rmppLossPercent);
            case SA_ERROR -> new SaFaults(dropPercent, delayMillis, value, errorStatus, trapLossPercent, rmppLossPercent);
            case SA_STATUS -> new SaFaults(dropPercent, delayMillis, errorPercent, value, trapLossPercent, rmppLossPercent);
            case TRAP_LOSS -> new SaFaults(dropPercent, delayMillis, errorPercent, errorStatus, value, rmppLossPercent);
            case SA_RMPP_LOSS -> new SaFaults(dropPercent, delayMillis, errorPercent, errorStatus, trapLossPercent, value);
            default -> throw new IllegalArgumentException("fault '" + kind + "' is a port's, not the SA's: the SA takes "
                    + FaultKind.alternatives(true).replace("|", ", "));
        };
    }

    public boolean any() {
        return dropPercent + delayMillis + errorPercent + trapLossPercent + rmppLossPercent > 0;
    }

    @Override
    public String toString() {
        return FaultKind.SA_DROP + "=" + dropPercent + "% " + FaultKind.SA_DELAY + "=" + delayMillis + "ms "
                + FaultKind.SA_ERROR + "=" + errorPercent + "% (status " + String.format("0x%04x", errorStatus) + ") "
                + FaultKind.TRAP_LOSS + "=" + trapLossPercent + "% " + FaultKind.SA_RMPP_LOSS + "=" + rmppLossPercent
                + "%";
    }
}
