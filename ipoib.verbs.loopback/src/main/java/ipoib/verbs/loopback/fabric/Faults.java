package ipoib.verbs.loopback.fabric;

import java.util.Locale;

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

    /** Every kind of fault {@code fabric:fault} takes: a port's, then the subnet administrator's. */
    public static final String KINDS = "loss, duplicate, reorder, delay, corrupt (a port's), "
            + "sa-drop, sa-delay, sa-error, sa-status, trap-loss, sa-rmpp-loss (the SA's)";

    public Faults {
        percent("loss", lossPercent);
        percent("duplicate", duplicatePercent);
        percent("reorder", reorderPercent);
        percent("corrupt", corruptPercent);
        if (delayMillis < 0 || delayMillis > 60_000) {
            throw new IllegalArgumentException("invalid fault 'delay' value " + delayMillis + ": allowed 0..60000 ms");
        }
    }

    private static void percent(String name, int value) {
        if (value < 0 || value > 100) {
            throw new IllegalArgumentException("invalid fault '" + name + "' value " + value + ": allowed 0..100 (percent)");
        }
    }

    public boolean any() {
        return lossPercent + duplicatePercent + reorderPercent + delayMillis + corruptPercent > 0;
    }

    /** This setting with one fault changed: loss, duplicate, reorder, delay or corrupt. */
    public Faults with(String kind, int value) {
        return switch (kind.toLowerCase(Locale.ROOT)) {
            case "loss" -> new Faults(value, duplicatePercent, reorderPercent, delayMillis, corruptPercent);
            case "duplicate" -> new Faults(lossPercent, value, reorderPercent, delayMillis, corruptPercent);
            case "reorder" -> new Faults(lossPercent, duplicatePercent, value, delayMillis, corruptPercent);
            case "delay" -> new Faults(lossPercent, duplicatePercent, reorderPercent, value, corruptPercent);
            case "corrupt" -> new Faults(lossPercent, duplicatePercent, reorderPercent, delayMillis, value);
            default -> throw new IllegalArgumentException("unknown fault '" + kind + "': allowed " + KINDS);
        };
    }

    @Override
    public String toString() {
        return "loss=" + lossPercent + "% duplicate=" + duplicatePercent + "% reorder=" + reorderPercent + "% delay="
                + delayMillis + "ms corrupt=" + corruptPercent + "%";
    }
}
