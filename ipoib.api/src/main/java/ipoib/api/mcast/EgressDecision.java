package ipoib.api.mcast;

/** The multicast egress decision of RFC 4391 §10. */
public enum EgressDecision {
    /** The port is a member (FullMember or SendOnlyNonMember): send. */
    SEND,
    /** The group exists: join as SendOnlyNonMember, then send. */
    JOIN_SEND_ONLY_THEN_SEND,
    /** The scope is beyond link-local and the all-routers group exists: send there. */
    SEND_TO_ALL_ROUTERS,
    /** None of the above: drop (counted). */
    DROP
}
