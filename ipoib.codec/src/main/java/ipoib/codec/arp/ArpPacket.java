package ipoib.codec.arp;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * One ARP or RARP packet over IPoIB (RFC 4391 §9.2), with the fixed header fields (hardware
 * type 32, protocol 0x0800, lengths 20 and 4) implied.
 *
 * <p>IPv4 addresses are held as {@code int}s whose most significant octet is the first octet of
 * the address ({@code 192.0.2.1} is {@code 0xC0000201}), so the resolver can key on them without
 * allocating; {@link #senderIp()} and {@link #targetIp()} give {@link Inet4Address}es.
 *
 * <p>Hardware addresses keep the flags octet as received. A peer's identity is its address
 * without flags ({@link LinkAddress#withoutFlags()}), as the capability flags do not change who
 * it is.
 *
 * @param operation request, reply, or their RARP forms
 * @param senderHardwareAddress the sender's 20-octet address (§9.1.1)
 * @param senderProtocolAddress the sender's IPv4 address
 * @param targetHardwareAddress the target's address; {@link #UNKNOWN_HARDWARE_ADDRESS} in a request
 * @param targetProtocolAddress the target's IPv4 address
 */
public record ArpPacket(ArpOperation operation, LinkAddress senderHardwareAddress, int senderProtocolAddress,
        LinkAddress targetHardwareAddress, int targetProtocolAddress) {

    /**
     * The all-zero address a request carries as its target hardware address, which the requester
     * does not know yet (RFC 826 leaves the field to the sender; zero is the usual choice).
     */
    public static final LinkAddress UNKNOWN_HARDWARE_ADDRESS = new LinkAddress(0, new Qpn(0), Gid.ZERO);

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException if a part is null
     */
    public ArpPacket {
        if (operation == null || senderHardwareAddress == null || targetHardwareAddress == null) {
            throw new IllegalArgumentException("ARP packet needs an operation and both hardware addresses, got "
                    + operation + ", " + senderHardwareAddress + ", " + targetHardwareAddress);
        }
    }

    /** An ARP request from {@code sender} at {@code senderIp} for {@code targetIp}. */
    public static ArpPacket request(LinkAddress sender, int senderIp, int targetIp) {
        return new ArpPacket(ArpOperation.REQUEST, sender, senderIp, UNKNOWN_HARDWARE_ADDRESS, targetIp);
    }

    /** The reply to {@code request}: {@code self} has the address the request asked for. */
    public static ArpPacket replyTo(ArpPacket request, LinkAddress self) {
        if (request.operation != ArpOperation.REQUEST) {
            throw new IllegalArgumentException("only an ARP request is answered with a reply, got " + request.operation);
        }
        return new ArpPacket(ArpOperation.REPLY, self, request.targetProtocolAddress, request.senderHardwareAddress,
                request.senderProtocolAddress);
    }

    /** The sender protocol address as an {@link Inet4Address}. */
    public Inet4Address senderIp() {
        return ipv4(senderProtocolAddress);
    }

    /** The target protocol address as an {@link Inet4Address}. */
    public Inet4Address targetIp() {
        return ipv4(targetProtocolAddress);
    }

    /** The {@code int} form of an IPv4 address, as the protocol address components hold it. */
    public static int ipv4(Inet4Address address) {
        byte[] b = address.getAddress();
        return (b[0] & 0xFF) << 24 | (b[1] & 0xFF) << 16 | (b[2] & 0xFF) << 8 | (b[3] & 0xFF);
    }

    /** The {@link Inet4Address} of an {@code int} IPv4 address. */
    public static Inet4Address ipv4(int address) {
        byte[] b = {(byte) (address >>> 24), (byte) (address >>> 16), (byte) (address >>> 8), (byte) address};
        try {
            return (Inet4Address) InetAddress.getByAddress(b);
        } catch (UnknownHostException e) {
            throw new AssertionError("four octets are always an IPv4 address", e);
        }
    }

    @Override
    public String toString() {
        return "ARP " + operation + " sender " + senderHardwareAddress + " " + senderIp().getHostAddress()
                + " target " + targetHardwareAddress + " " + targetIp().getHostAddress();
    }
}
