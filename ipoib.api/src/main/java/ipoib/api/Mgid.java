package ipoib.api;

/**
 * A multicast GID (IBA 4.1.1): a {@link Gid} whose first octet is 0xFF, followed by a flags
 * nibble and a scope nibble, as in IPv6 multicast addresses.
 *
 * <p>IPoIB MGIDs (RFC 4391 §4) are {@code FF1s:401B:PPPP::...} for IPv4 and
 * {@code FF1s:601B:PPPP:...} for IPv6; the mapping itself lives in the codec.
 *
 * @param gid the group's GID; its first octet is 0xFF
 */
public record Mgid(Gid gid) {

    /** Scope nibble of a link-local group (RFC 4391 §4: the IPoIB default). */
    public static final int SCOPE_LINK_LOCAL = 0x2;
    /** The flag bit T: a transient (not permanently assigned) group. */
    public static final int FLAG_TRANSIENT = 0x1;

    /**
     * @throws IllegalArgumentException if the GID is null or not multicast
     */
    public Mgid {
        if (gid == null) {
            throw new IllegalArgumentException("MGID must not be null");
        }
        if (!gid.isMulticast()) {
            throw Values.invalid("MGID", gid, "a multicast GID begins with ff");
        }
    }

    /** An MGID from its two 64-bit halves. */
    public static Mgid of(long prefix, long interfaceId) {
        return new Mgid(new Gid(prefix, interfaceId));
    }

    /** Parses an MGID in IPv6 notation, e.g. {@code ff12:401b:ffff::ffff:ffff}. */
    public static Mgid parse(String text) {
        return new Mgid(Gid.parse(text));
    }

    /** The flags nibble (bit 0x1 is T, transient). */
    public int flags() {
        return (int) (gid.prefix() >>> 52) & 0xF;
    }

    /** The scope nibble: 2 link-local, 5 site-local, 8 organisation-local, 0xE global. */
    public int scope() {
        return (int) (gid.prefix() >>> 48) & 0xF;
    }

    /** Whether the T flag (transient group) is set. */
    public boolean isTransient() {
        return (flags() & FLAG_TRANSIENT) != 0;
    }

    @Override
    public String toString() {
        return gid.toString();
    }
}
