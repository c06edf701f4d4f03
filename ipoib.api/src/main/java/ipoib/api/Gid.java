package ipoib.api;

/**
 * A 128-bit InfiniBand global identifier (IBA 4.1.1), written in IPv6 notation.
 *
 * <p>A port GID is the 64-bit subnet prefix followed by the 64-bit port GUID; a multicast GID
 * (first octet 0xFF) names a group, see {@link Mgid}. The text form is the canonical IPv6 form
 * of RFC 5952 (lower case, longest run of zero groups compressed), e.g. {@code fe80::2:c903:0:1}.
 *
 * @param prefix the upper 64 bits (the subnet prefix of a port GID)
 * @param interfaceId the lower 64 bits (the port GUID of a port GID)
 */
public record Gid(long prefix, long interfaceId) {

    /** Length of a GID in octets. */
    public static final int LENGTH = 16;
    /** The default subnet prefix {@code fe80::/64} (IBA 4.1.1). */
    public static final long DEFAULT_SUBNET_PREFIX = 0xfe80_0000_0000_0000L;
    /** The all-zero GID, used for "no GID" in records. */
    public static final Gid ZERO = new Gid(0, 0);

    /** A port GID from its subnet prefix and port GUID. */
    public static Gid of(long subnetPrefix, Guid portGuid) {
        return new Gid(subnetPrefix, portGuid.value());
    }

    /**
     * A GID from its 16 octets in network order.
     *
     * @throws IllegalArgumentException if {@code octets} is null or not 16 long
     */
    public static Gid fromBytes(byte[] octets) {
        if (octets == null || octets.length != LENGTH) {
            throw Values.invalid("GID", octets == null ? "null" : octets.length + " octets",
                    "a GID has exactly 16 octets");
        }
        return fromBytes(octets, 0);
    }

    /** A GID from 16 octets at {@code offset}, in network order. */
    public static Gid fromBytes(byte[] octets, int offset) {
        if (octets == null || offset < 0 || octets.length - offset < LENGTH) {
            throw Values.invalid("GID", octets == null ? "null" : "offset " + offset + " in " + octets.length + " octets",
                    "16 octets are needed");
        }
        return new Gid(readLong(octets, offset), readLong(octets, offset + 8));
    }

    /** The 16 octets of this GID in network order (a new array). */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        writeLong(out, 0, prefix);
        writeLong(out, 8, interfaceId);
        return out;
    }

    /** Whether this is a multicast GID (first octet 0xFF). */
    public boolean isMulticast() {
        return (prefix >>> 56) == 0xFF;
    }

    /** The port GUID part (lower 64 bits). */
    public Guid guid() {
        return new Guid(interfaceId);
    }

    /**
     * Parses a GID written in IPv6 notation ({@code fe80::2:c903:0:1}, {@code ff12:401b:ffff::ffff:ffff}).
     *
     * @throws IllegalArgumentException naming the text when it is not an IPv6-style GID
     */
    public static Gid parse(String text) {
        String t = Values.requireText("GID", text);
        final String allowed = "expected IPv6 notation with 8 groups of 1-4 hex digits, '::' at most once";
        int doubleColon = t.indexOf("::");
        if (doubleColon >= 0 && t.indexOf("::", doubleColon + 1) >= 0) {
            throw Values.invalid("GID", text, allowed);
        }
        int[] groups = new int[8];
        if (doubleColon < 0) {
            if (parseGroups(t, groups, 0, text, allowed) != 8) {
                throw Values.invalid("GID", text, allowed);
            }
        } else {
            String head = t.substring(0, doubleColon);
            String tail = t.substring(doubleColon + 2);
            int[] tailGroups = new int[8];
            int h = head.isEmpty() ? 0 : parseGroups(head, groups, 0, text, allowed);
            int n = tail.isEmpty() ? 0 : parseGroups(tail, tailGroups, 0, text, allowed);
            if (h + n > 7) {
                throw Values.invalid("GID", text, allowed);
            }
            System.arraycopy(tailGroups, 0, groups, 8 - n, n);
        }
        long hi = 0;
        long lo = 0;
        for (int i = 0; i < 4; i++) {
            hi = (hi << 16) | groups[i];
            lo = (lo << 16) | groups[i + 4];
        }
        return new Gid(hi, lo);
    }

    private static int parseGroups(String part, int[] into, int start, String text, String allowed) {
        String[] fields = part.split(":", -1);
        if (fields.length > 8) {
            throw Values.invalid("GID", text, allowed);
        }
        for (int i = 0; i < fields.length; i++) {
            String f = fields[i];
            if (f.isEmpty() || f.length() > 4) {
                throw Values.invalid("GID", text, allowed);
            }
            int v = 0;
            for (int k = 0; k < f.length(); k++) {
                v = (v << 4) | Values.hexDigit("GID", text, f.charAt(k), allowed);
            }
            into[start + i] = v;
        }
        return fields.length;
    }

    /** The canonical IPv6 text form (RFC 5952). */
    @Override
    public String toString() {
        int[] g = new int[8];
        for (int i = 0; i < 4; i++) {
            g[i] = (int) (prefix >>> (48 - 16 * i)) & 0xFFFF;
            g[i + 4] = (int) (interfaceId >>> (48 - 16 * i)) & 0xFFFF;
        }
        // Longest run of at least two zero groups; the first one wins a tie (RFC 5952 4.2.3).
        int bestStart = -1;
        int bestLen = 1;
        for (int i = 0; i < 8; ) {
            if (g[i] != 0) {
                i++;
                continue;
            }
            int j = i;
            while (j < 8 && g[j] == 0) {
                j++;
            }
            if (j - i > bestLen) {
                bestStart = i;
                bestLen = j - i;
            }
            i = j;
        }
        StringBuilder sb = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (i == bestStart) {
                sb.append("::");
                i += bestLen - 1;
                continue;
            }
            if (sb.length() > 0 && sb.charAt(sb.length() - 1) != ':') {
                sb.append(':');
            }
            sb.append(Integer.toHexString(g[i]));
        }
        return sb.toString();
    }

    static long readLong(byte[] b, int off) {
        long v = 0;
        for (int i = 0; i < 8; i++) {
            v = (v << 8) | (b[off + i] & 0xFF);
        }
        return v;
    }

    static void writeLong(byte[] b, int off, long v) {
        for (int i = 7; i >= 0; i--) {
            b[off + i] = (byte) v;
            v >>>= 8;
        }
    }
}
