package ipoib.codec.arp;

import ipoib.api.link.EtherType;

/**
 * The operations an IPoIB ARP packet may carry: ARP request and reply (RFC 826, used as-is by
 * RFC 4391 §9.2) and RARP request and reply (RFC 903, same packet format, EtherType 0x8035).
 */
public enum ArpOperation {
    /** ARP request: who has the target protocol address? */
    REQUEST(1, EtherType.ARP),
    /** ARP reply: the sender has the sender protocol address. */
    REPLY(2, EtherType.ARP),
    /** RARP request: which protocol address belongs to the target hardware address? */
    REVERSE_REQUEST(3, EtherType.RARP),
    /** RARP reply: the target hardware address has the target protocol address. */
    REVERSE_REPLY(4, EtherType.RARP);

    private final int code;
    private final int etherType;

    ArpOperation(int code, int etherType) {
        this.code = code;
        this.etherType = etherType;
    }

    /** The value of the operation field. */
    public int code() {
        return code;
    }

    /** The EtherType of the encapsulation header this operation travels under. */
    public int etherType() {
        return etherType;
    }

    /** The operation with this code, or {@code null} for a code IPoIB does not define. */
    public static ArpOperation ofCode(int code) {
        return switch (code) {
            case 1 -> REQUEST;
            case 2 -> REPLY;
            case 3 -> REVERSE_REQUEST;
            case 4 -> REVERSE_REPLY;
            default -> null;
        };
    }
}
