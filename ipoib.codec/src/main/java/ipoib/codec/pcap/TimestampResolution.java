package ipoib.codec.pcap;

/** The timestamp unit of a pcapng interface (its {@code if_tsresol} option, a power of ten). */
public enum TimestampResolution {
    /** 10<sup>-6</sup> s, the pcapng default. */
    MICROSECONDS(6, 1_000),
    /** 10<sup>-9</sup> s. */
    NANOSECONDS(9, 1);

    private final int exponent;
    private final long nanosPerUnit;

    TimestampResolution(int exponent, long nanosPerUnit) {
        this.exponent = exponent;
        this.nanosPerUnit = nanosPerUnit;
    }

    /** The {@code if_tsresol} octet: the negative power of ten. */
    public int exponent() {
        return exponent;
    }

    /** Timestamp units of an instant given in nanoseconds (rounded down). */
    public long toUnits(long epochNanos) {
        return Math.floorDiv(epochNanos, nanosPerUnit);
    }
}
