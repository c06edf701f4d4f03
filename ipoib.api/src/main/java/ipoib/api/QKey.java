package ipoib.api;

/**
 * A 32-bit queue key (IBA 10.2.4). Q_Keys with the high bit set are controlled: only a
 * privileged consumer may send with them. The IPoIB link's Q_Key comes from the broadcast
 * group's join answer (RFC 4391 §5).
 *
 * @param value all 32 bits (held as an int; compare with {@link #unsigned()})
 */
public record QKey(int value) {

    /** The controlled bit. */
    public static final int CONTROLLED_BIT = 0x8000_0000;
    /** The well-known Q_Key of the general services interface (QP1). */
    public static final QKey GSI = new QKey(0x8001_0000);

    /** A Q_Key from its 32 bits. */
    public static QKey of(int value) {
        return new QKey(value);
    }

    /** A Q_Key from an unsigned value 0..0xFFFFFFFF. */
    public static QKey ofUnsigned(long value) {
        Values.checkRange("Q_Key", value, 0, 0xFFFF_FFFFL);
        return new QKey((int) value);
    }

    /** Parses {@code 0x0b1b} or a decimal number up to 0xFFFFFFFF. */
    public static QKey parse(String text) {
        return ofUnsigned(Values.parseUnsigned("Q_Key", text, 0xFFFF_FFFFL,
                "allowed 0..0xFFFFFFFF (32 bits), decimal or 0x-hex"));
    }

    /** Whether the controlled bit is set (privileged senders only). */
    public boolean isControlled() {
        return (value & CONTROLLED_BIT) != 0;
    }

    /** The value as an unsigned number. */
    public long unsigned() {
        return Integer.toUnsignedLong(value);
    }

    @Override
    public String toString() {
        return String.format("0x%08x", value);
    }
}
