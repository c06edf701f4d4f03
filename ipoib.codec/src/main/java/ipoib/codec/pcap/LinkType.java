package ipoib.codec.pcap;

/** The pcap/pcapng link types this package writes (tcpdump.org link-layer header types registry). */
public final class LinkType {
    private LinkType() {}

    /**
     * LINKTYPE_ERF (197): each packet starts with an Endace ERF record header; type 21
     * (INFINIBAND) records carry a whole IBA packet from LRH to VCRC.
     */
    public static final int ERF = 197;
    /**
     * LINKTYPE_IPOIB (242): IP over InfiniBand as in RFC 4391 §6, preceded by the 40-octet
     * pseudo-header of {@link IpoibPseudoHeader}.
     */
    public static final int IPOIB = 242;
}
