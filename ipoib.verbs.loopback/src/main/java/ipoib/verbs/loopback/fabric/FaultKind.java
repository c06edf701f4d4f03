package ipoib.verbs.loopback.fabric;

import java.util.Arrays;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The faults the loopback fabric can inject, by the word {@code fabric:fault} and the console's
 * Fabric form take: a port's ({@link Faults}) or the subnet administrator's ({@link SaFaults}).
 */
public enum FaultKind {
    LOSS("loss", false, Unit.PERCENT),
    DUPLICATE("duplicate", false, Unit.PERCENT),
    REORDER("reorder", false, Unit.PERCENT),
    DELAY("delay", false, Unit.MILLIS),
    CORRUPT("corrupt", false, Unit.PERCENT),
    SA_DROP("sa-drop", true, Unit.PERCENT),
    SA_DELAY("sa-delay", true, Unit.MILLIS),
    SA_ERROR("sa-error", true, Unit.PERCENT),
    SA_STATUS("sa-status", true, Unit.MAD_STATUS),
    TRAP_LOSS("trap-loss", true, Unit.PERCENT),
    SA_RMPP_LOSS("sa-rmpp-loss", true, Unit.PERCENT);

    /** What a fault's value means, and the values it may take. */
    public enum Unit {
        PERCENT("percent", 0, 100), MILLIS("ms", 0, 60_000), MAD_STATUS("MAD status", 1, 0xFFFF);

        private final String text;
        private final int min;
        private final int max;

        Unit(String text, int min, int max) {
            this.text = text;
            this.min = min;
            this.max = max;
        }

        /** The smallest value allowed. */
        public int min() {
            return min;
        }

        /** The largest value allowed. */
        public int max() {
            return max;
        }

        @Override
        public String toString() {
            return text;
        }
    }

    private final String word;
    private final boolean subnetAdministrator;
    private final Unit unit;

    FaultKind(String word, boolean subnetAdministrator, Unit unit) {
        this.word = word;
        this.subnetAdministrator = subnetAdministrator;
        this.unit = unit;
    }

    /** The word the command, the form and the fault listings use, e.g. {@code sa-drop}. */
    public String word() {
        return word;
    }

    /** True for the subnet administrator's faults, which apply to the whole subnet, not to a port. */
    public boolean ofSubnetAdministrator() {
        return subnetAdministrator;
    }

    public Unit unit() {
        return unit;
    }

    /** The kind a word names, in any case; otherwise an error listing every kind. */
    public static FaultKind parse(String word) {
        String w = word == null ? "" : word.strip().toLowerCase(Locale.ROOT);
        for (FaultKind k : values()) {
            if (k.word.equals(w)) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown fault '" + word + "': allowed " + allowed());
    }

    /** Every kind, a port's first, e.g. for an error message or a usage line. */
    public static String allowed() {
        return words(false) + " (a port's), " + words(true) + " (the SA's)";
    }

    /** The words of a port's kinds or of the SA's, separated by {@code |}. */
    public static String alternatives(boolean subnetAdministrator) {
        return Arrays.stream(values()).filter(k -> k.subnetAdministrator == subnetAdministrator).map(FaultKind::word)
                .collect(Collectors.joining("|"));
    }

    private static String words(boolean subnetAdministrator) {
        return alternatives(subnetAdministrator).replace("|", ", ");
    }

    @Override
    public String toString() {
        return word;
    }
}
