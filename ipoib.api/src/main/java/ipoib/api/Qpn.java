package ipoib.api;

/**
 * A 24-bit queue pair number (IBA 10.2.4). QPN 0 and 1 are the management QPs (SMI and GSI);
 * 0xFFFFFF addresses multicast (RFC 4391 §9.1.1 uses it in multicast link-layer addresses).
 *
 * @param value 0..0xFFFFFF
 */
public record Qpn(int value) {

    /** The largest QPN. */
    public static final int MAX = 0xFF_FFFF;
    /** The QPN of multicast destinations. */
    public static final Qpn MULTICAST = new Qpn(MAX);
    /** The general services interface QP, where subnet administration MADs go. */
    public static final Qpn GSI = new Qpn(1);

    /**
     * @throws IllegalArgumentException when {@code value} is outside 0..0xFFFFFF
     */
    public Qpn {
        Values.checkRange("QPN", value, 0, MAX);
    }

    /** A QPN from its 24-bit value. */
    public static Qpn of(int value) {
        return new Qpn(value);
    }

    /** Parses {@code 0x000048} or a decimal number. */
    public static Qpn parse(String text) {
        return new Qpn((int) Values.parseUnsigned("QPN", text, MAX, "allowed 0..0xFFFFFF (24 bits), decimal or 0x-hex"));
    }

    @Override
    public String toString() {
        return String.format("0x%06x", value);
    }
}
