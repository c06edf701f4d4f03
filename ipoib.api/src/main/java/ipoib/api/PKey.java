package ipoib.api;

/**
 * A 16-bit partition key (IBA 10.9.1): the high bit is the membership type (1 full, 0 limited),
 * the low 15 bits the partition. A base of zero is invalid, so 0x0000 and 0x8000 are refused.
 *
 * <p>Two ports may talk when their P_Keys have the same base and at least one is a full member.
 * The IPoIB default partition is {@code 0xffff} (RFC 4391 §4 puts the P_Key with the full-member
 * bit into the broadcast-GID).
 *
 * @param value 16-bit P_Key with a non-zero base
 */
public record PKey(int value) {

    /** The full-membership bit. */
    public static final int FULL_MEMBER_BIT = 0x8000;
    /** The default partition, full member. */
    public static final PKey DEFAULT = new PKey(0xFFFF);

    /**
     * @throws IllegalArgumentException for values beyond 16 bits or with a zero base
     */
    public PKey {
        if (value < 0 || value > 0xFFFF || (value & 0x7FFF) == 0) {
            throw Values.invalid("P_Key", String.format("0x%04x", value),
                    "allowed 0x0001..0x7fff (limited) and 0x8001..0xffff (full); 0x0000 and 0x8000 are invalid");
        }
    }

    /** A P_Key from its 16-bit value. */
    public static PKey of(int value) {
        return new PKey(value);
    }

    /** Parses {@code 0xffff} (hex needs the 0x prefix) or a decimal number. */
    public static PKey parse(String text) {
        long v = Values.parseUnsigned("P_Key", text, 0xFFFF,
                "allowed 0x0001..0x7fff and 0x8001..0xffff, decimal or 0x-hex");
        return new PKey((int) v);
    }

    /** The 15-bit partition number. */
    public int base() {
        return value & 0x7FFF;
    }

    /** Whether the full-membership bit is set. */
    public boolean isFullMember() {
        return (value & FULL_MEMBER_BIT) != 0;
    }

    /** This partition with the full-membership bit set. */
    public PKey asFullMember() {
        return isFullMember() ? this : new PKey(value | FULL_MEMBER_BIT);
    }

    /** This partition with the full-membership bit cleared (limited membership). */
    public PKey asLimitedMember() {
        return isFullMember() ? new PKey(value & 0x7FFF) : this;
    }

    /** Whether {@code other} names the same partition, regardless of membership. */
    public boolean samePartition(PKey other) {
        return other != null && other.base() == base();
    }

    /**
     * The IBA partition check: same base, and at least one of the two is a full member.
     */
    public boolean canCommunicateWith(PKey other) {
        return samePartition(other) && (isFullMember() || other.isFullMember());
    }

    @Override
    public String toString() {
        return String.format("0x%04x", value);
    }
}
