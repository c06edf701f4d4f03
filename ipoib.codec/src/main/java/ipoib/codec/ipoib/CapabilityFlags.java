package ipoib.codec.ipoib;

import ipoib.api.LinkAddress;

/**
 * The capability flags in the first octet of the IPoIB link-layer address
 * (draft-kashyap-ipoib-advanced-capabilities-00 §2.0; RFC 4391 §9.1.1 calls the octet reserved).
 *
 * <p>The draft's rule is "transmit as zero, ignore on receive" for every capability a stack does
 * not implement. Of the draft's capabilities (its bit layout: {@link #QPN}, {@link #RC},
 * {@link #UC}, {@link #RD}) this stack implements none, so {@link #IMPLEMENTED},
 * {@link #toTransmit} and {@link #honoured} speak of the draft's bits and are always zero.
 * Connected mode is announced and honoured with Linux's bit instead, {@link #CONNECTED} (0x80,
 * the position of the draft's QPN bit; see there why): an interface sets it only while it runs
 * connected mode (ipoib.link's {@code ModeSwitch}), and a sender acts on that one bit of a
 * peer's address alone (ipoib.link's {@code LinkResources.sendUnicast}); 0x40, 0x20 and 0x10 are
 * always sent as zero and ignored. The raw octet stays visible (for logs and captures) through
 * the decoders; peer identity ignores it, see {@link LinkAddressCodec#samePeer}.
 */
public final class CapabilityFlags {
    private CapabilityFlags() {}

    /** IPoIB-QPN: services mapped to their own QPNs. */
    public static final int QPN = LinkAddress.FLAG_QPN;
    /** IPoIB-RC: IP over reliable connected mode. */
    public static final int RC = LinkAddress.FLAG_RC;
    /** IPoIB-UC: IP over unreliable connected mode. */
    public static final int UC = LinkAddress.FLAG_UC;
    /** IPoIB-RD: IP over reliable datagram mode. */
    public static final int RD = LinkAddress.FLAG_RD;
    /**
     * Connected mode as Linux and RFC 4755 announce it: {@code IPOIB_FLAGS_RC} 0x80
     * (drivers/infiniband/ulp/ipoib/ipoib.h, next to {@code IPOIB_FLAGS_UC} 0x40 and
     * {@code IPOIB_CM_SUPPORTED(ha) (ha[0] & IPOIB_FLAGS_RC)}). The draft and Linux agree on the
     * octet (the reserved first octet of RFC 4391 §9.1.1), on its rule ("set only what you
     * implement, ignore the rest") and on RC/UC being announced there; they do not agree on the
     * bits: the draft's 0x80 is IPoIB-QPN and its RC is 0x40, which Linux uses for UC. This stack
     * speaks Linux's layout on the wire, because Linux is the only deployed IPoIB-CM and
     * interoperating with it is the point: a connected-mode interface sends 0x80, and honours
     * 0x80 from a peer as "connect to me over RC". It implements none of the draft's QPN/UC/RD
     * capabilities, so the draft's other bits (0x40, 0x20, 0x10) are sent as zero and ignored.
     */
    public static final int CONNECTED = 0x80;
    /** The four defined flags; the low four bits of the octet are reserved. */
    public static final int DEFINED = QPN | RC | UC | RD;
    /**
     * The draft's capabilities this stack implements: none beyond the mandatory IPoIB-UD
     * (connected mode is Linux's {@link #CONNECTED} bit, not the draft's {@link #RC}).
     */
    public static final int IMPLEMENTED = 0;

    /**
     * The flags octet to transmit for the capabilities a caller would like to announce: only
     * those this stack implements survive, everything else is transmitted as zero.
     */
    public static int toTransmit(int wanted) {
        return wanted & IMPLEMENTED;
    }

    /** The capabilities of a peer's flags octet that this stack acts on (the others are ignored). */
    public static int honoured(int receivedFlags) {
        return receivedFlags & IMPLEMENTED;
    }

    /** The defined capability flags a peer announces, implemented or not (for display). */
    public static int announced(int receivedFlags) {
        return receivedFlags & DEFINED;
    }

    /** Whether {@code flags} has every bit of {@code capability}. */
    public static boolean has(int flags, int capability) {
        return (flags & capability) == capability;
    }

    /** The announced flags as text for logs, e.g. {@code QPN|RC}, or {@code none}. */
    public static String describe(int flags) {
        StringBuilder sb = new StringBuilder();
        append(sb, flags, QPN, "QPN");
        append(sb, flags, RC, "RC");
        append(sb, flags, UC, "UC");
        append(sb, flags, RD, "RD");
        return sb.isEmpty() ? "none" : sb.toString();
    }

    private static void append(StringBuilder sb, int flags, int bit, String name) {
        if ((flags & bit) != 0) {
            if (!sb.isEmpty()) {
                sb.append('|');
            }
            sb.append(name);
        }
    }
}
