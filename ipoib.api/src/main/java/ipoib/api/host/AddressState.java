package ipoib.api.host;

/** The state of an interface address (RFC 4862 §2 for IPv6; IPv4 addresses are PREFERRED at once). */
public enum AddressState {
    /** Duplicate address detection is under way: not used as a source, not answered for. */
    TENTATIVE,
    /** Usable. */
    PREFERRED,
    /** Usable for existing communication; its preferred lifetime has passed (RFC 4862 §5.5.4). */
    DEPRECATED,
    /** Another node on the link has it (RFC 4862 §5.4.5): never used. */
    DUPLICATE;

    /** Whether the address may be used as a source and be answered for. */
    public boolean usable() {
        return this == PREFERRED || this == DEPRECATED;
    }
}
