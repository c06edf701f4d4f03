package ipoib.api.link;

/** EtherTypes carried in the IPoIB encapsulation header (RFC 4391 §6). */
public final class EtherType {
    private EtherType() {}

    public static final int IPV4 = 0x0800;
    public static final int ARP = 0x0806;
    public static final int RARP = 0x8035;
    public static final int IPV6 = 0x86DD;

    /** A short name for logs and shell output: {@code IPv4}, {@code ARP}, or {@code 0x88b5}. */
    public static String name(int etherType) {
        return switch (etherType) {
            case IPV4 -> "IPv4";
            case ARP -> "ARP";
            case RARP -> "RARP";
            case IPV6 -> "IPv6";
            default -> String.format("0x%04x", etherType);
        };
    }
}
