package ipoib.api.host;

/** Where an interface address comes from. */
public enum AddressOrigin {
    /** A ConfigAdmin configuration (factory PID {@code ipoib.address}), e.g. from {@code ipoib:addr add}. */
    CONFIGURED,
    /** Added through the service by an application. */
    MANUAL,
    /** The IPv6 link-local address of the interface (RFC 4391 §8, §8.1). */
    LINK_LOCAL,
    /** Stateless address autoconfiguration from a Router Advertisement prefix (RFC 4862 §5.5.3). */
    AUTOCONF
}
