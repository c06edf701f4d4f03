package ipoib.api;

/**
 * The 20-octet IPoIB link-layer address (RFC 4391 §9.1.1): one flags octet, the 24-bit QPN and
 * the 128-bit GID.
 *
 * <p>RFC 4391 calls the first octet reserved; the advanced-capabilities draft (§2.0) assigns
 * its upper four bits to capability flags. A stack sets only the flags it implements and ignores
 * the others on receive. Multicast and broadcast addresses carry QPN 0xFFFFFF and the MGID.
 *
 * <p>The text form is Linux's: 20 colon-separated hex octets,
 * {@code 80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:00:01}.
 *
 * @param flags the flags octet (0..0xFF)
 * @param qpn the queue pair number
 * @param gid the port GID, or the MGID for multicast
 */
public record LinkAddress(int flags, Qpn qpn, Gid gid) {

    /** Length of the address in octets. */
    public static final int LENGTH = 20;
    /** Capability flag: IPoIB-QPN (advanced-capabilities draft §2.0). */
    public static final int FLAG_QPN = 0x80;
    /** Capability flag: IPoIB-RC. */
    public static final int FLAG_RC = 0x40;
    /** Capability flag: IPoIB-UC. */
    public static final int FLAG_UC = 0x20;
    /** Capability flag: IPoIB-RD. */
    public static final int FLAG_RD = 0x10;

    /**
     * @throws IllegalArgumentException for a flags value beyond one octet or a null part
     */
    public LinkAddress {
        Values.checkRange("link-address flags", flags, 0, 0xFF);
        if (qpn == null || gid == null) {
            throw new IllegalArgumentException("link address needs a QPN and a GID, got qpn=" + qpn + " gid=" + gid);
        }
    }

    /** A unicast address with no capability flags (IPoIB-UD only). */
    public static LinkAddress of(Qpn qpn, Gid gid) {
        return new LinkAddress(0, qpn, gid);
    }

    /** The multicast (or broadcast) address of a group: QPN 0xFFFFFF and the MGID. */
    public static LinkAddress multicast(Mgid mgid) {
        return new LinkAddress(0, Qpn.MULTICAST, mgid.gid());
    }

    /** Whether this is a multicast address (QPN 0xFFFFFF and a multicast GID). */
    public boolean isMulticast() {
        return qpn.value() == Qpn.MAX && gid.isMulticast();
    }

    /** The same address without capability flags: what identifies the peer. */
    public LinkAddress withoutFlags() {
        return flags == 0 ? this : new LinkAddress(0, qpn, gid);
    }

    /** The 20 octets (a new array). */
    public byte[] toBytes() {
        byte[] out = new byte[LENGTH];
        out[0] = (byte) flags;
        out[1] = (byte) (qpn.value() >>> 16);
        out[2] = (byte) (qpn.value() >>> 8);
        out[3] = (byte) qpn.value();
        Gid.writeLong(out, 4, gid.prefix());
        Gid.writeLong(out, 12, gid.interfaceId());
        return out;
    }

    /** An address from 20 octets at {@code offset}. */
    public static LinkAddress fromBytes(byte[] octets, int offset) {
        if (octets == null || offset < 0 || octets.length - offset < LENGTH) {
            throw Values.invalid("link address", octets == null ? "null" : "offset " + offset + " in " + octets.length + " octets",
                    "20 octets are needed");
        }
        int qpn = (octets[offset + 1] & 0xFF) << 16 | (octets[offset + 2] & 0xFF) << 8 | (octets[offset + 3] & 0xFF);
        return new LinkAddress(octets[offset] & 0xFF, new Qpn(qpn), Gid.fromBytes(octets, offset + 4));
    }

    /**
     * Parses 20 colon-separated hex octets.
     *
     * @throws IllegalArgumentException naming the text when it is not that
     */
    public static LinkAddress parse(String text) {
        String t = Values.requireText("link address", text);
        String[] parts = t.split(":", -1);
        final String allowed = "expected 20 colon-separated hex octets, e.g. 00:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:00:01";
        if (parts.length != LENGTH) {
            throw Values.invalid("link address", text, allowed + " (found " + parts.length + ")");
        }
        byte[] octets = new byte[LENGTH];
        for (int i = 0; i < LENGTH; i++) {
            String p = parts[i];
            if (p.isEmpty() || p.length() > 2) {
                throw Values.invalid("link address", text, allowed);
            }
            int v = 0;
            for (int k = 0; k < p.length(); k++) {
                v = (v << 4) | Values.hexDigit("link address", text, p.charAt(k), allowed);
            }
            octets[i] = (byte) v;
        }
        return fromBytes(octets, 0);
    }

    @Override
    public String toString() {
        byte[] b = toBytes();
        StringBuilder sb = new StringBuilder(LENGTH * 3);
        for (int i = 0; i < b.length; i++) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(Character.forDigit((b[i] >> 4) & 0xF, 16)).append(Character.forDigit(b[i] & 0xF, 16));
        }
        return sb.toString();
    }
}
