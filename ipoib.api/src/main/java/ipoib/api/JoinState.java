package ipoib.api;

/**
 * The membership a port asks for in a multicast group (IBA 15.2.5.17, MCMemberRecord JoinState).
 *
 * <p>FullMember ports send and receive and keep the group alive; NonMember ports receive but do
 * not count for the group's lifetime (routers, RFC 4391 §11); SendOnlyNonMember ports only send
 * (RFC 4391 §10). SendOnlyFullMember (IBA 1.3 errata, bit 0x8) ports only send but, like a
 * FullMember, may create the group and keep it alive; an SA supports it when its ClassPortInfo
 * says so ({@link ipoib.api.sa.SaCapabilities#sendOnlyFullMember()}), as Linux checks before
 * using it.
 */
public enum JoinState {
    FULL_MEMBER(0x1, "FullMember"),
    NON_MEMBER(0x2, "NonMember"),
    SEND_ONLY_NON_MEMBER(0x4, "SendOnlyNonMember"),
    /** @since 1.1 */
    SEND_ONLY_FULL_MEMBER(0x8, "SendOnlyFullMember"),
    /**
     * No join state: what the SA shows in the records of a member-table query from an untrusted
     * requester (SM_Key 0), where PortGID and JoinState are zero (IBA 15.2.5.17, OpenSM
     * mcmr_query_mgrp). Never a state to join or leave with.
     *
     * @since 1.1
     */
    NONE(0x0, "None");

    private final int bit;
    private final String text;

    JoinState(int bit, String text) {
        this.bit = bit;
        this.text = text;
    }

    /** The bit of this state in the 4-bit JoinState field. */
    public int bit() {
        return bit;
    }

    /** Whether the state receives the group's traffic (FullMember and NonMember do). */
    public boolean receives() {
        return this == FULL_MEMBER || this == NON_MEMBER;
    }

    /**
     * Whether the state may create the group and keeps it alive (FullMember, SendOnlyFullMember).
     *
     * @since 1.1
     */
    public boolean full() {
        return this == FULL_MEMBER || this == SEND_ONLY_FULL_MEMBER;
    }

    /**
     * The join state of a single-bit field value.
     *
     * @throws IllegalArgumentException for anything but 0x0 (none), 0x1, 0x2, 0x4 or 0x8
     */
    public static JoinState fromBit(int bit) {
        for (JoinState s : values()) {
            if (s.bit == bit) {
                return s;
            }
        }
        throw Values.invalid("join state", bit, "allowed 0x1 FullMember, 0x2 NonMember, 0x4 SendOnlyNonMember, 0x8 SendOnlyFullMember "
                + "(0x0 only in untrusted table answers)");
    }

    /** Parses {@code FullMember}, {@code NonMember}, {@code SendOnlyNonMember} or {@code SendOnlyFullMember} (any case). */
    public static JoinState parse(String text) {
        String t = Values.requireText("join state", text);
        for (JoinState s : values()) {
            if (s.text.equalsIgnoreCase(t) || s.name().equalsIgnoreCase(t)) {
                return s;
            }
        }
        throw Values.invalid("join state", text, "allowed FullMember, NonMember, SendOnlyNonMember, SendOnlyFullMember");
    }

    @Override
    public String toString() {
        return text;
    }
}
