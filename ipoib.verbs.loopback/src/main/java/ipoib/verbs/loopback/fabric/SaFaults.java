package ipoib.verbs.loopback.fabric;

import ipoib.api.sa.SaStatus;
import java.util.Locale;

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
        percent("sa-drop", dropPercent);
        percent("sa-error", errorPercent);
        percent("trap-loss", trapLossPercent);
        percent("sa-rmpp-loss", rmppLossPercent);
        if (delayMillis < 0 || delayMillis > 60_000) {
            throw new IllegalArgumentException("invalid fault 'sa-delay' value " + delayMillis + ": allowed 0..60000 ms");
        }
        if (errorStatus <= 0 || errorStatus > 0xFFFF) {
            throw new IllegalArgumentException(String.format(
                    "invalid fault 'sa-status' value 0x%x: allowed 0x0001..0xffff (a MAD status)", errorStatus));
        }
    }

    private static void percent(String name, int value) {
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("invalid fault '" + name + "' value " + value + ": allowed 0..100 (percent)");
        }
    }

    /** This setting with one fault changed: sa-drop, sa-delay, sa-error, sa-status, trap-loss or sa-rmpp-loss. */
    public SaFaults with(String kind, int value) {
        return switch (kind.toLowerCase(Locale.ROOT)) {
            case "sa-drop" -> new SaFaults(value, delayMillis, errorPercent, errorStatus, trapLossPercent,
                    rmppLossPercent);
            case "sa-delay" -> new SaFaults(dropPercent, value, errorPercent, errorStatus, trapLossPercent,
                    rmppLossPercent);
            case "sa-error" -> new SaFaults(dropPercent, delayMillis, value, errorStatus, trapLossPercent,
                    rmppLossPercent);
            case "sa-status" -> new SaFaults(dropPercent, delayMillis, errorPercent, value, trapLossPercent,
                    rmppLossPercent);
            case "trap-loss" -> new SaFaults(dropPercent, delayMillis, errorPercent, errorStatus, value,
                    rmppLossPercent);
            case "sa-rmpp-loss" -> new SaFaults(dropPercent, delayMillis, errorPercent, errorStatus, trapLossPercent,
                    value);
            default -> throw new IllegalArgumentException("unknown SA fault '" + kind
                    + "': allowed sa-drop, sa-delay, sa-error, sa-status, trap-loss, sa-rmpp-loss");
        };
    }

    public boolean any() {
        return dropPercent + delayMillis + errorPercent + trapLossPercent + rmppLossPercent > 0;
    }

    @Override
    public String toString() {
        return "sa-drop=" + dropPercent + "% sa-delay=" + delayMillis + "ms sa-error=" + errorPercent + "% (status "
                + String.format("0x%04x", errorStatus) + ") trap-loss=" + trapLossPercent + "% sa-rmpp-loss=" + rmppLossPercent
                + "%";
    }
}
