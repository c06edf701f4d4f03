package ipoib.api.mcast;

/** Why the port belongs to a group. */
public enum GroupOrigin {
    /** The link's broadcast group. */
    BROADCAST,
    /** A local listener joined the IP group (FullMember). */
    LISTENER,
    /** Traffic was sent to the group (SendOnlyNonMember). */
    SEND_ONLY,
    /** Router mode (NonMember). */
    ROUTER
}
