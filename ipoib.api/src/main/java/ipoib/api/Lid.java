package ipoib.api;

/**
 * A 16-bit local identifier (IBA 4.1.3): 0 is "not assigned", 0x0001-0xBFFF unicast,
 * 0xC000-0xFFFE multicast, 0xFFFF the permissive LID.
 *
 * <p>The text form is hexadecimal, {@code 0x0012}; {@link #parse} also takes decimal, as ibstat
 * prints it.
 *
 * @param value 0..0xFFFF
 */
public record Lid(int value) {

    /** The highest unicast LID. */
    public static final int MAX_UNICAST = 0xBFFF;
    /** The first multicast LID. */
    public static final int MULTICAST_BASE = 0xC000;
    /** The permissive LID. */
    public static final int PERMISSIVE = 0xFFFF;
    /** A port whose LID is not yet assigned by the subnet manager. */
    public static final Lid UNASSIGNED = new Lid(0);

    /**
     * @throws IllegalArgumentException when {@code value} is outside 0..0xFFFF
     */
    public Lid {
        Values.checkRange("LID", value, 0, 0xFFFF);
    }

    /** A LID from its 16-bit value. */
    public static Lid of(int value) {
        return new Lid(value);
    }

    /** Parses {@code 0x12} or {@code 18}. */
    public static Lid parse(String text) {
        return new Lid((int) Values.parseUnsigned("LID", text, 0xFFFF, "allowed 0..0xFFFF, decimal or 0x-hex"));
    }

    /** Whether this LID addresses one port (0x0001-0xBFFF). */
    public boolean isUnicast() {
        return value >= 1 && value <= MAX_UNICAST;
    }

    /** Whether this LID addresses a multicast group (0xC000-0xFFFE). */
    public boolean isMulticast() {
        return value >= MULTICAST_BASE && value < PERMISSIVE;
    }

    @Override
    public String toString() {
        return String.format("0x%04x", value);
    }
}
