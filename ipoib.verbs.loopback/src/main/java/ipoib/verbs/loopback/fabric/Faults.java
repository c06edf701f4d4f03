package ipoib.verbs.loopback.fabric;

/**
 * Fault injection settings of one sending port (or of the SA). Percentages are 0..100; a
 * delay is in milliseconds. Immutable: replaced as a whole.
 *
 * @param lossPercent packets lost on the link
 * @param duplicatePercent packets delivered twice
 * @param reorderPercent packets held back so that later ones overtake them
 * @param delayMillis every packet delivered this much later
 * @param corruptPercent packets with a flipped bit (caught by the ICRC/VCRC check and dropped)
 */
public record Faults(int lossPercent, int duplicatePercent, int reorderPercent, int delayMillis, int corruptPercent) {

    public static final Faults NONE = new Faults(0, 0, 0, 0, 0);

    public Faults {
        percent(FaultKind.LOSS, lossPercent);
        percent(FaultKind.DUPLICATE, duplicatePercent);
        percent(FaultKind.REORDER, reorderPercent);
        percent(FaultKind.CORRUPT, corruptPercent);
        if (delayMillis < 0 || delayMillis > 60_000) {
            throw new IllegalArgumentException("invalid fault '" + FaultKind.DELAY + "' value " + delayMillis
                    + ": allowed 0..60000 ms");
        }
    }

    private static void percent(FaultKind kind, int value) {
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("invalid fault '" + kind + "' value " + value + ": allowed 0..100 (percent)");
        }
    }

    public boolean any() {
        return lossPercent + duplicatePercent + reorderPercent + delayMillis + corruptPercent > 0;
    }

    /** This setting with one of a port's faults changed; an SA fault is refused. */
    public Faults with(FaultKind kind, int value) {
        return switch (kind) {
            case LOSS -> new Faults(value, duplicatePercent, reorderPercent, delayMillis, corruptPercent);
            case DUPLICATE -> new Faults(lossPercent, value, reorderPercent, delayMillis, corruptPercent);
            case REORDER -> new Faults(lossPercent, duplicatePercent, value, delayMillis, corruptPercent);
            case DELAY -> new Faults(lossPercent, duplicatePercent, reorderPercent, value, corruptPercent);
            case CORRUPT -> new Faults(lossPercent, duplicatePercent, reorderPercent, delayMillis, value);
            default -> throw new IllegalArgumentException("fault '" + kind + "' is the SA's, not a port's: a port takes "
                    + FaultKind.alternatives(false).replace("|", ", "));
        };
    }

    @Override
    public String toString() {
        return FaultKind.LOSS + "=" + lossPercent + "% " + FaultKind.DUPLICATE + "=" + duplicatePercent + "% "
                + FaultKind.REORDER + "=" + reorderPercent + "% " + FaultKind.DELAY + "=" + delayMillis + "ms "
                + FaultKind.CORRUPT + "=" + corruptPercent + "%";
    }
}
