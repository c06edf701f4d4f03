package ipoib.api;

/**
 * A static rate (IBA 15.2.5.16, the 6-bit rate enumeration of PathRecord and MCMemberRecord).
 */
public enum Rate {
    RATE_2_5_GBPS(2, "2.5 Gb/s"),
    RATE_10_GBPS(3, "10 Gb/s"),
    RATE_30_GBPS(4, "30 Gb/s"),
    RATE_5_GBPS(5, "5 Gb/s"),
    RATE_20_GBPS(6, "20 Gb/s"),
    RATE_40_GBPS(7, "40 Gb/s"),
    RATE_60_GBPS(8, "60 Gb/s"),
    RATE_80_GBPS(9, "80 Gb/s"),
    RATE_120_GBPS(10, "120 Gb/s"),
    RATE_14_GBPS(11, "14 Gb/s"),
    RATE_56_GBPS(12, "56 Gb/s"),
    RATE_112_GBPS(13, "112 Gb/s"),
    RATE_168_GBPS(14, "168 Gb/s"),
    RATE_25_GBPS(15, "25 Gb/s"),
    RATE_100_GBPS(16, "100 Gb/s"),
    RATE_200_GBPS(17, "200 Gb/s"),
    RATE_300_GBPS(18, "300 Gb/s");

    private final int code;
    private final String text;

    Rate(int code, String text) {
        this.code = code;
        this.text = text;
    }

    /** The IBA enumeration value. */
    public int code() {
        return code;
    }

    /**
     * The rate with this IBA code.
     *
     * @throws IllegalArgumentException for codes outside 2..18
     */
    public static Rate fromCode(int code) {
        for (Rate r : values()) {
            if (r.code == code) {
                return r;
            }
        }
        throw Values.invalid("rate code", code, "allowed 2..18 (IBA 15.2.5.16)");
    }

    @Override
    public String toString() {
        return text;
    }
}
