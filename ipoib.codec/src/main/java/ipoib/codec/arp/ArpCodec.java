package ipoib.codec.arp;

import ipoib.api.link.EtherType;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.ipoib.LinkAddressCodec;
import java.lang.foreign.MemorySegment;

/**
 * Encoder and decoder of the IPoIB ARP/RARP packet (RFC 4391 §9.2 with the RFC 826 layout):
 *
 * <pre>
 *  octet 0..1    hardware type      32 (InfiniBand, §9.2)
 *  octet 2..3    protocol type      0x0800 (IPv4)
 *  octet 4       hardware length    20 (§9.2, the §9.1.1 address)
 *  octet 5       protocol length    4
 *  octet 6..7    operation          1 request, 2 reply, 3 RARP request, 4 RARP reply
 *  octet 8..27   sender hardware address
 *  octet 28..31  sender protocol address
 *  octet 32..51  target hardware address
 *  octet 52..55  target protocol address
 * </pre>
 *
 * <p>The decoder checks every header field and its consistency with the others before it reads
 * an address, so an Ethernet ARP (type 1, length 6) or an IPv6-sized protocol length is reported
 * at the field that is wrong, not misread. Octets after the 56 are not looked at.
 */
public final class ArpCodec {
    private ArpCodec() {}

    /** Length of an IPoIB ARP packet: 8 + 2 * (20 + 4). */
    public static final int LENGTH = 56;
    /** The IANA hardware type of InfiniBand (RFC 4391 §9.2). */
    public static final int HARDWARE_TYPE_INFINIBAND = 32;
    /** Hardware type of Ethernet, named in error messages because it is the common mistake. */
    public static final int HARDWARE_TYPE_ETHERNET = 1;
    /** Protocol type of IPv4. */
    public static final int PROTOCOL_IPV4 = EtherType.IPV4;
    /** Length of the IPoIB hardware address. */
    public static final int HARDWARE_LENGTH = LinkAddressCodec.LENGTH;
    /** Length of an IPv4 address. */
    public static final int PROTOCOL_LENGTH = 4;

    static final int HTYPE = 0;
    static final int PTYPE = 2;
    static final int HLEN = 4;
    static final int PLEN = 5;
    static final int OPER = 6;
    static final int SHA = 8;
    static final int SPA = 28;
    static final int THA = 32;
    static final int TPA = 52;

    /**
     * Writes {@code packet}.
     *
     * @return {@link #LENGTH}
     * @throws IndexOutOfBoundsException if 56 octets do not fit in {@code buf} at {@code offset}
     */
    public static int encode(MemorySegment buf, long offset, ArpPacket packet) {
        if (offset < 0 || offset > buf.byteSize() - LENGTH) {
            throw new IndexOutOfBoundsException("ARP packet needs " + LENGTH + " octets at offset " + offset
                    + " of a " + buf.byteSize() + "-octet buffer");
        }
        Wire.put16(buf, offset + HTYPE, HARDWARE_TYPE_INFINIBAND);
        Wire.put16(buf, offset + PTYPE, PROTOCOL_IPV4);
        Wire.put8(buf, offset + HLEN, HARDWARE_LENGTH);
        Wire.put8(buf, offset + PLEN, PROTOCOL_LENGTH);
        Wire.put16(buf, offset + OPER, packet.operation().code());
        LinkAddressCodec.write(buf, offset + SHA, packet.senderHardwareAddress());
        Wire.put32(buf, offset + SPA, packet.senderProtocolAddress());
        LinkAddressCodec.write(buf, offset + THA, packet.targetHardwareAddress());
        Wire.put32(buf, offset + TPA, packet.targetProtocolAddress());
        return LENGTH;
    }

    /**
     * Decodes the packet at {@code offset}, any of the four operations.
     *
     * @throws DecodeException for fewer than 56 octets, a hardware type other than 32, a
     *     protocol type other than IPv4, lengths other than 20 and 4, or an operation other
     *     than 1..4
     */
    public static ArpPacket decode(MemorySegment buf, long offset) throws DecodeException {
        Wire.require(buf, offset, LENGTH, "ARP packet");
        int htype = Wire.u16(buf, offset + HTYPE);
        int ptype = Wire.u16(buf, offset + PTYPE);
        int hlen = Wire.u8(buf, offset + HLEN);
        int plen = Wire.u8(buf, offset + PLEN);
        if (htype != HARDWARE_TYPE_INFINIBAND) {
            String hint = htype == HARDWARE_TYPE_ETHERNET ? " (Ethernet)" : "";
            throw new DecodeException("ARP hardware type", offset + HTYPE, "is " + htype + hint
                    + " with hardware length " + hlen + ", IPoIB uses 32 with length 20");
        }
        if (ptype != PROTOCOL_IPV4) {
            throw new DecodeException("ARP protocol type", offset + PTYPE,
                    String.format("is 0x%04x, IPoIB ARP resolves IPv4 (0x0800)", ptype));
        }
        if (hlen != HARDWARE_LENGTH) {
            throw new DecodeException("ARP hardware length", offset + HLEN, "is " + hlen
                    + " with hardware type 32, the IPoIB address has 20 octets");
        }
        if (plen != PROTOCOL_LENGTH) {
            throw new DecodeException("ARP protocol length", offset + PLEN, "is " + plen
                    + " with protocol type 0x0800, an IPv4 address has 4 octets");
        }
        int code = Wire.u16(buf, offset + OPER);
        ArpOperation operation = ArpOperation.ofCode(code);
        if (operation == null) {
            throw new DecodeException("ARP operation", offset + OPER,
                    "is " + code + ", expected 1 (request), 2 (reply), 3 (RARP request) or 4 (RARP reply)");
        }
        return new ArpPacket(operation, LinkAddressCodec.read(buf, offset + SHA), Wire.u32(buf, offset + SPA),
                LinkAddressCodec.read(buf, offset + THA), Wire.u32(buf, offset + TPA));
    }

    /**
     * Decodes the packet at {@code offset} that arrived under {@code etherType}, and checks that
     * the operation belongs to it: ARP (0x0806) carries operations 1 and 2, RARP (0x8035) 3 and 4.
     *
     * @throws DecodeException as {@link #decode(MemorySegment, long)}, for an EtherType that is
     *     neither ARP nor RARP (reported at {@code offset}, the packet is not ARP at all), or for
     *     an operation of the other protocol
     */
    public static ArpPacket decode(MemorySegment buf, long offset, int etherType) throws DecodeException {
        if (etherType != EtherType.ARP && etherType != EtherType.RARP) {
            throw new DecodeException("EtherType", offset, "is " + EtherType.name(etherType)
                    + ", an ARP packet travels under ARP (0x0806) or RARP (0x8035)");
        }
        ArpPacket packet = decode(buf, offset);
        if (packet.operation().etherType() != etherType) {
            throw new DecodeException("ARP operation", offset + OPER, "is " + packet.operation().code()
                    + ", which belongs to " + EtherType.name(packet.operation().etherType()) + ", but the packet came as "
                    + EtherType.name(etherType));
        }
        return packet;
    }
}
