package ipoib.codec.nd;

import ipoib.api.LinkAddress;
import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import ipoib.codec.ipoib.LinkAddressCodec;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Encoder and decoder of whole IPv6 packets carrying Neighbor Discovery messages (RFC 4861 §4)
 * over IPoIB, whose link-layer address options have the form of RFC 4391 §9.3:
 *
 * <pre>
 *  IPv6 header (40 octets, RFC 8200 §3): version 6, next header 58, hop limit 255
 *  ICMPv6 header: type 133..137, code 0, checksum over the pseudo-header
 *  message body (4, 12, 20, 20 or 36 octets by type)
 *  options: type, length in units of 8 octets, data
 *    1/2  source/target link-layer address: length 3 = 2 zero octets + 20-octet address (§9.3)
 *    3    prefix information (length 4), 4 redirected header (skipped), 5 MTU (length 1)
 * </pre>
 *
 * <p>The decoder applies the validity checks of RFC 4861 §6.1.1, §6.1.2, §7.1.1, §7.1.2 and
 * §8.1: hop limit 255, code 0, checksum, minimum length, no zero-length option, and the
 * per-message address rules. Options are walked with every length checked against the end of the
 * message; unknown option types are skipped (§4.6). An option this codec knows must have its
 * defined length wherever it appears; only the ones a message type uses are interpreted, and of
 * those a link-layer address or MTU option may appear once (two different link-layer addresses
 * would leave the receiver guessing). Packets whose ICMPv6 message does not directly follow the
 * IPv6 header are not ND packets for this codec; {@link #isNeighborDiscovery} says which
 * packets to hand it. The 2 octets before the address in a link-layer address option are written
 * zero (§9.3) and, like every reserved field of RFC 4861, not checked on receive.
 *
 * <p>The encoder writes traffic class and flow label zero, hop limit 255, no extension headers.
 */
public final class NdCodec {
    private NdCodec() {}

    /** Length of the IPv6 header. */
    public static final int IPV6_HEADER_LENGTH = 40;
    /** The IPv6 next header of ICMPv6. */
    public static final int NEXT_HEADER_ICMPV6 = Icmpv6Checksum.NEXT_HEADER_ICMPV6;
    /** The hop limit every ND packet is sent with and must arrive with (RFC 4861 §7.1.1). */
    public static final int HOP_LIMIT = 255;

    /** Option type: source link-layer address. */
    public static final int OPTION_SOURCE_LINK_ADDRESS = 1;
    /** Option type: target link-layer address. */
    public static final int OPTION_TARGET_LINK_ADDRESS = 2;
    /** Option type: prefix information. */
    public static final int OPTION_PREFIX_INFORMATION = 3;
    /** Option type: redirected header. */
    public static final int OPTION_REDIRECTED_HEADER = 4;
    /** Option type: MTU. */
    public static final int OPTION_MTU = 5;
    /** Length in units of 8 octets of an IPoIB link-layer address option (RFC 4391 §9.3). */
    public static final int LINK_ADDRESS_OPTION_UNITS = 3;

    private static final int LINK_ADDRESS_OPTION_LENGTH = 8 * LINK_ADDRESS_OPTION_UNITS;
    private static final int PREFIX_OPTION_UNITS = 4;
    private static final int MTU_OPTION_UNITS = 1;
    private static final int ICMP = IPV6_HEADER_LENGTH;
    private static final int ICMP_CHECKSUM = ICMP + 2;
    private static final int BODY = ICMP + 4;
    private static final int SOURCE = 8;
    private static final int DESTINATION = 24;

    // ---------------------------------------------------------------- classify

    /**
     * Whether the IPv6 packet at {@code offset} is meant for this codec: at least an IPv6 header
     * and an ICMPv6 type octet, version 6, next header 58 and ICMPv6 type 133..137. It says
     * nothing about validity, which {@link #decode} judges. Never throws for bad input.
     */
    public static boolean isNeighborDiscovery(MemorySegment buf, long offset, long length) {
        if (offset < 0 || length < IPV6_HEADER_LENGTH + 1 || offset > buf.byteSize() - length) {
            return false;
        }
        if ((Wire.u8(buf, offset) >>> 4) != 6 || Wire.u8(buf, offset + 6) != NEXT_HEADER_ICMPV6) {
            return false;
        }
        int type = Wire.u8(buf, offset + ICMP);
        return type >= NdMessage.TYPE_ROUTER_SOLICITATION && type <= NdMessage.TYPE_REDIRECT;
    }

    // ---------------------------------------------------------------- encode

    /**
     * The number of octets {@link #encode} writes for {@code message}, IPv6 header included.
     *
     * @throws IllegalArgumentException if the message would not fit a 16-bit payload length
     */
    public static int encodedLength(NdMessage message) {
        long icmp = switch (message) {
            case RouterSolicitation rs -> 8 + linkOptionLength(rs.sourceLinkAddress());
            case RouterAdvertisement ra -> 16 + linkOptionLength(ra.sourceLinkAddress())
                    + (ra.mtu().isPresent() ? 8 : 0) + 32L * ra.prefixes().size();
            case NeighborSolicitation ns -> 24 + linkOptionLength(ns.sourceLinkAddress());
            case NeighborAdvertisement na -> 24 + linkOptionLength(na.targetLinkAddress());
            case Redirect r -> 40 + linkOptionLength(r.targetLinkAddress());
        };
        if (icmp > 0xFFFF) {
            throw new IllegalArgumentException("ND message of " + icmp + " octets does not fit the 16-bit IPv6 payload length");
        }
        return IPV6_HEADER_LENGTH + (int) icmp;
    }

    /**
     * Writes {@code message} as a whole IPv6 packet at {@code offset}, checksum included.
     *
     * @return the number of octets written, {@link #encodedLength(NdMessage)}
     * @throws IndexOutOfBoundsException if the packet does not fit in {@code buf} at {@code offset}
     */
    public static int encode(MemorySegment buf, long offset, NdMessage message) {
        int length = encodedLength(message);
        if (offset < 0 || offset > buf.byteSize() - length) {
            throw new IndexOutOfBoundsException("ND packet needs " + length + " octets at offset " + offset
                    + " of a " + buf.byteSize() + "-octet buffer");
        }
        int icmpLength = length - IPV6_HEADER_LENGTH;
        Wire.put32(buf, offset, 6 << 28);
        Wire.put16(buf, offset + 4, icmpLength);
        Wire.put8(buf, offset + 6, NEXT_HEADER_ICMPV6);
        Wire.put8(buf, offset + 7, HOP_LIMIT);
        Ipv6.write(buf, offset + SOURCE, message.source());
        Ipv6.write(buf, offset + DESTINATION, message.destination());
        Wire.put8(buf, offset + ICMP, message.icmpType());
        Wire.put8(buf, offset + ICMP + 1, 0);
        Wire.put16(buf, offset + ICMP_CHECKSUM, 0);
        long p = offset + BODY;
        switch (message) {
            case RouterSolicitation rs -> {
                Wire.put32(buf, p, 0);
                p = writeLinkOption(buf, p + 4, OPTION_SOURCE_LINK_ADDRESS, rs.sourceLinkAddress());
            }
            case RouterAdvertisement ra -> {
                Wire.put8(buf, p, ra.curHopLimit());
                Wire.put8(buf, p + 1, (ra.managed() ? 0x80 : 0) | (ra.otherConfig() ? 0x40 : 0));
                Wire.put16(buf, p + 2, ra.routerLifetime());
                Wire.put32(buf, p + 4, (int) ra.reachableTime());
                Wire.put32(buf, p + 8, (int) ra.retransTimer());
                p = writeLinkOption(buf, p + 12, OPTION_SOURCE_LINK_ADDRESS, ra.sourceLinkAddress());
                if (ra.mtu().isPresent()) {
                    Wire.put8(buf, p, OPTION_MTU);
                    Wire.put8(buf, p + 1, MTU_OPTION_UNITS);
                    Wire.put16(buf, p + 2, 0);
                    Wire.put32(buf, p + 4, (int) ra.mtu().getAsLong());
                    p += 8;
                }
                for (PrefixInformation pi : ra.prefixes()) {
                    Wire.put8(buf, p, OPTION_PREFIX_INFORMATION);
                    Wire.put8(buf, p + 1, PREFIX_OPTION_UNITS);
                    Wire.put8(buf, p + 2, pi.prefixLength());
                    Wire.put8(buf, p + 3, (pi.onLink() ? 0x80 : 0) | (pi.autonomous() ? 0x40 : 0));
                    Wire.put32(buf, p + 4, (int) pi.validLifetime());
                    Wire.put32(buf, p + 8, (int) pi.preferredLifetime());
                    Wire.put32(buf, p + 12, 0);
                    Ipv6.write(buf, p + 16, pi.prefix());
                    p += 32;
                }
            }
            case NeighborSolicitation ns -> {
                Wire.put32(buf, p, 0);
                Ipv6.write(buf, p + 4, ns.target());
                p = writeLinkOption(buf, p + 20, OPTION_SOURCE_LINK_ADDRESS, ns.sourceLinkAddress());
            }
            case NeighborAdvertisement na -> {
                Wire.put32(buf, p, (na.router() ? 0x8000_0000 : 0) | (na.solicited() ? 0x4000_0000 : 0)
                        | (na.override() ? 0x2000_0000 : 0));
                Ipv6.write(buf, p + 4, na.target());
                p = writeLinkOption(buf, p + 20, OPTION_TARGET_LINK_ADDRESS, na.targetLinkAddress());
            }
            case Redirect r -> {
                Wire.put32(buf, p, 0);
                Ipv6.write(buf, p + 4, r.target());
                Ipv6.write(buf, p + 20, r.redirectedDestination());
                p = writeLinkOption(buf, p + 36, OPTION_TARGET_LINK_ADDRESS, r.targetLinkAddress());
            }
        }
        assert p == offset + length;
        Wire.put16(buf, offset + ICMP_CHECKSUM, Icmpv6Checksum.compute(buf, offset, icmpLength));
        return length;
    }

    private static int linkOptionLength(Optional<LinkAddress> address) {
        return address.isPresent() ? LINK_ADDRESS_OPTION_LENGTH : 0;
    }

    private static long writeLinkOption(MemorySegment buf, long p, int type, Optional<LinkAddress> address) {
        if (address.isEmpty()) {
            return p;
        }
        Wire.put8(buf, p, type);
        Wire.put8(buf, p + 1, LINK_ADDRESS_OPTION_UNITS);
        Wire.put16(buf, p + 2, 0);
        LinkAddressCodec.write(buf, p + 4, address.get());
        return p + LINK_ADDRESS_OPTION_LENGTH;
    }

    // ---------------------------------------------------------------- decode

    /**
     * Decodes the IPv6 packet of {@code length} octets at {@code offset}. Octets beyond the
     * IPv6 payload length are ignored.
     *
     * @throws DecodeException for anything RFC 4861 or RFC 4391 §9.3 rejects, see the class
     *     description; the offset is that of the offending field in {@code buf}
     */
    public static NdMessage decode(MemorySegment buf, long offset, long length) throws DecodeException {
        if (length < 0) {
            throw new DecodeException("IPv6 packet", offset, "has negative length " + length);
        }
        Wire.require(buf, offset, length, "IPv6 packet");
        if (length < IPV6_HEADER_LENGTH) {
            throw new DecodeException("IPv6 header", offset, "truncated: needs 40 octets, " + length + " available");
        }
        int version = Wire.u8(buf, offset) >>> 4;
        if (version != 6) {
            throw new DecodeException("IPv6 version", offset, "is " + version + ", expected 6");
        }
        int payloadLength = Wire.u16(buf, offset + 4);
        if (payloadLength > length - IPV6_HEADER_LENGTH) {
            throw new DecodeException("IPv6 payload length", offset + 4, "is " + payloadLength + " but only "
                    + (length - IPV6_HEADER_LENGTH) + " octets follow the header");
        }
        int nextHeader = Wire.u8(buf, offset + 6);
        if (nextHeader != NEXT_HEADER_ICMPV6) {
            throw new DecodeException("IPv6 next header", offset + 6, "is " + nextHeader
                    + ", an ND packet carries ICMPv6 (58) right after the IPv6 header");
        }
        int hopLimit = Wire.u8(buf, offset + 7);
        if (hopLimit != HOP_LIMIT) {
            throw new DecodeException("IPv6 hop limit", offset + 7, "is " + hopLimit
                    + ", ND packets must arrive with 255 (RFC 4861 §7.1.1): this one crossed a router or was forged");
        }
        if (payloadLength < 8) {
            throw new DecodeException("IPv6 payload length", offset + 4, "is " + payloadLength
                    + ", an ND message has at least 8 octets");
        }
        long icmp = offset + ICMP;
        int type = Wire.u8(buf, icmp);
        int minimum = switch (type) {
            case NdMessage.TYPE_ROUTER_SOLICITATION -> 8;
            case NdMessage.TYPE_ROUTER_ADVERTISEMENT -> 16;
            case NdMessage.TYPE_NEIGHBOR_SOLICITATION, NdMessage.TYPE_NEIGHBOR_ADVERTISEMENT -> 24;
            case NdMessage.TYPE_REDIRECT -> 40;
            default -> throw new DecodeException("ICMPv6 type", icmp, "is " + type
                    + ", not a Neighbor Discovery message (133..137)");
        };
        int code = Wire.u8(buf, icmp + 1);
        if (code != 0) {
            throw new DecodeException("ICMPv6 code", icmp + 1, "is " + code + ", ND messages have code 0");
        }
        if (payloadLength < minimum) {
            throw new DecodeException("IPv6 payload length", offset + 4, "is " + payloadLength + ", "
                    + name(type) + " needs at least " + minimum + " octets");
        }
        if (!Icmpv6Checksum.isValid(buf, offset, payloadLength)) {
            throw new DecodeException("ICMPv6 checksum", icmp + 2, String.format("is 0x%04x, expected 0x%04x",
                    Wire.u16(buf, icmp + 2), Icmpv6Checksum.compute(buf, offset, payloadLength)));
        }
        Inet6Address source = Ipv6.read(buf, offset + SOURCE);
        Inet6Address destination = Ipv6.read(buf, offset + DESTINATION);
        long body = offset + BODY;
        Options options = new Options(type);
        options.walk(buf, icmp + minimum, icmp + payloadLength);
        return switch (type) {
            case NdMessage.TYPE_ROUTER_SOLICITATION -> {
                if (Ipv6.isUnspecified(source) && options.sourceLink != null) {
                    throw new DecodeException("ND source link-layer address option", options.sourceLinkOffset,
                            "is present although the source is :: (RFC 4861 §6.1.1)");
                }
                yield new RouterSolicitation(source, destination, Optional.ofNullable(options.sourceLink));
            }
            case NdMessage.TYPE_ROUTER_ADVERTISEMENT -> {
                requireLinkLocalSource(source, offset, "Router Advertisement", "§6.1.2");
                int flags = Wire.u8(buf, body + 1);
                yield new RouterAdvertisement(source, destination, Wire.u8(buf, body), (flags & 0x80) != 0,
                        (flags & 0x40) != 0, Wire.u16(buf, body + 2), Integer.toUnsignedLong(Wire.u32(buf, body + 4)),
                        Integer.toUnsignedLong(Wire.u32(buf, body + 8)), Optional.ofNullable(options.sourceLink),
                        options.mtuOffset < 0 ? OptionalLong.empty() : OptionalLong.of(options.mtu), options.prefixes);
            }
            case NdMessage.TYPE_NEIGHBOR_SOLICITATION -> {
                Inet6Address target = Ipv6.read(buf, body + 4);
                requireUnicastTarget(target, body + 4, "§7.1.1");
                if (Ipv6.isUnspecified(source)) {
                    if (!Ipv6.isSolicitedNodeMulticast(destination)) {
                        throw new DecodeException("IPv6 destination address", offset + DESTINATION, "is "
                                + destination.getHostAddress()
                                + ", a solicitation from :: goes to a solicited-node multicast address (RFC 4861 §7.1.1)");
                    }
                    if (options.sourceLink != null) {
                        throw new DecodeException("ND source link-layer address option", options.sourceLinkOffset,
                                "is present although the source is :: (RFC 4861 §7.1.1)");
                    }
                }
                yield new NeighborSolicitation(source, destination, target, Optional.ofNullable(options.sourceLink));
            }
            case NdMessage.TYPE_NEIGHBOR_ADVERTISEMENT -> {
                int flags = Wire.u32(buf, body);
                boolean solicited = (flags & 0x4000_0000) != 0;
                Inet6Address target = Ipv6.read(buf, body + 4);
                requireUnicastTarget(target, body + 4, "§7.1.2");
                if (solicited && Ipv6.isMulticast(destination)) {
                    throw new DecodeException("Neighbor Advertisement S flag", body,
                            "is set although the destination " + destination.getHostAddress()
                                    + " is multicast (RFC 4861 §7.1.2)");
                }
                yield new NeighborAdvertisement(source, destination, flags < 0, solicited, (flags & 0x2000_0000) != 0,
                        target, Optional.ofNullable(options.targetLink));
            }
            default -> {
                requireLinkLocalSource(source, offset, "Redirect", "§8.1");
                Inet6Address target = Ipv6.read(buf, body + 4);
                Inet6Address redirected = Ipv6.read(buf, body + 20);
                if (Ipv6.isMulticast(redirected)) {
                    throw new DecodeException("Redirect destination address", body + 20, "is multicast "
                            + redirected.getHostAddress() + " (RFC 4861 §8.1)");
                }
                if (!Ipv6.isLinkLocal(target) && !target.equals(redirected)) {
                    throw new DecodeException("Redirect target address", body + 4, "is " + target.getHostAddress()
                            + ", neither link-local nor the redirected destination (RFC 4861 §8.1)");
                }
                yield new Redirect(source, destination, target, redirected, Optional.ofNullable(options.targetLink));
            }
        };
    }

    private static void requireLinkLocalSource(Inet6Address source, long offset, String message, String section)
            throws DecodeException {
        if (!Ipv6.isLinkLocal(source)) {
            throw new DecodeException("IPv6 source address", offset + SOURCE, "is " + source.getHostAddress() + ", a "
                    + message + " comes from a link-local address (RFC 4861 " + section + ")");
        }
    }

    private static void requireUnicastTarget(Inet6Address target, long at, String section) throws DecodeException {
        if (Ipv6.isMulticast(target)) {
            throw new DecodeException("ND target address", at, "is multicast " + target.getHostAddress()
                    + " (RFC 4861 " + section + ")");
        }
    }

    private static String name(int type) {
        return switch (type) {
            case NdMessage.TYPE_ROUTER_SOLICITATION -> "a Router Solicitation";
            case NdMessage.TYPE_ROUTER_ADVERTISEMENT -> "a Router Advertisement";
            case NdMessage.TYPE_NEIGHBOR_SOLICITATION -> "a Neighbor Solicitation";
            case NdMessage.TYPE_NEIGHBOR_ADVERTISEMENT -> "a Neighbor Advertisement";
            default -> "a Redirect";
        };
    }

    /** The options of one message, collected in a single walk. */
    private static final class Options {
        private final int messageType;
        LinkAddress sourceLink;
        long sourceLinkOffset = -1;
        LinkAddress targetLink;
        long targetLinkOffset = -1;
        long mtu;
        long mtuOffset = -1;
        final List<PrefixInformation> prefixes = new ArrayList<>();

        Options(int messageType) {
            this.messageType = messageType;
        }

        void walk(MemorySegment buf, long start, long end) throws DecodeException {
            long p = start;
            while (p < end) {
                if (end - p < 2) {
                    throw new DecodeException("ND option header", p, "truncated: needs 2 octets, "
                            + (end - p) + " left in the message");
                }
                int type = Wire.u8(buf, p);
                int units = Wire.u8(buf, p + 1);
                if (units == 0) {
                    throw new DecodeException("ND option length", p + 1, "is 0 in an option of type " + type
                            + " (RFC 4861 §4.6 forbids it)");
                }
                long length = 8L * units;
                if (length > end - p) {
                    throw new DecodeException("ND option length", p + 1, "is " + units + " (" + length
                            + " octets) in an option of type " + type + ", but only " + (end - p)
                            + " octets are left in the message");
                }
                switch (type) {
                    case OPTION_SOURCE_LINK_ADDRESS -> linkAddress(buf, p, units, true);
                    case OPTION_TARGET_LINK_ADDRESS -> linkAddress(buf, p, units, false);
                    case OPTION_PREFIX_INFORMATION -> prefix(buf, p, units);
                    case OPTION_MTU -> mtu(buf, p, units);
                    default -> {
                        // Redirected header (type 4) and unknown types: skipped (RFC 4861 §4.6, §4.6.3).
                    }
                }
                p += length;
            }
        }

        private void linkAddress(MemorySegment buf, long p, int units, boolean source) throws DecodeException {
            String field = source ? "ND source link-layer address option" : "ND target link-layer address option";
            if (units != LINK_ADDRESS_OPTION_UNITS) {
                throw new DecodeException(field + " length", p + 1, "is " + units + " (" + 8 * units
                        + " octets), over IPoIB it is 3: 2 zero octets and the 20-octet address (RFC 4391 §9.3)");
            }
            boolean used = source
                    ? messageType == NdMessage.TYPE_ROUTER_SOLICITATION || messageType == NdMessage.TYPE_ROUTER_ADVERTISEMENT
                            || messageType == NdMessage.TYPE_NEIGHBOR_SOLICITATION
                    : messageType == NdMessage.TYPE_NEIGHBOR_ADVERTISEMENT || messageType == NdMessage.TYPE_REDIRECT;
            if (!used) {
                return; // RFC 4861 §4.6.1: ignored in the other messages
            }
            long previous = source ? sourceLinkOffset : targetLinkOffset;
            if (previous >= 0) {
                throw new DecodeException(field, p, "appears a second time (the first is at offset " + previous + ")");
            }
            LinkAddress address = LinkAddressCodec.read(buf, p + 4);
            if (source) {
                sourceLink = address;
                sourceLinkOffset = p;
            } else {
                targetLink = address;
                targetLinkOffset = p;
            }
        }

        private void prefix(MemorySegment buf, long p, int units) throws DecodeException {
            if (units != PREFIX_OPTION_UNITS) {
                throw new DecodeException("ND prefix information option length", p + 1, "is " + units
                        + ", the option has length 4 (RFC 4861 §4.6.2)");
            }
            int prefixLength = Wire.u8(buf, p + 2);
            if (prefixLength > 128) {
                throw new DecodeException("ND prefix information prefix length", p + 2, "is " + prefixLength
                        + ", an IPv6 prefix has at most 128 bits");
            }
            if (messageType != NdMessage.TYPE_ROUTER_ADVERTISEMENT) {
                return; // RFC 4861 §4.6.2: ignored in the other messages
            }
            int flags = Wire.u8(buf, p + 3);
            prefixes.add(new PrefixInformation(prefixLength, (flags & 0x80) != 0, (flags & 0x40) != 0,
                    Integer.toUnsignedLong(Wire.u32(buf, p + 4)), Integer.toUnsignedLong(Wire.u32(buf, p + 8)),
                    Ipv6.read(buf, p + 16)));
        }

        private void mtu(MemorySegment buf, long p, int units) throws DecodeException {
            if (units != MTU_OPTION_UNITS) {
                throw new DecodeException("ND MTU option length", p + 1, "is " + units
                        + ", the option has length 1 (RFC 4861 §4.6.4)");
            }
            if (messageType != NdMessage.TYPE_ROUTER_ADVERTISEMENT) {
                return; // RFC 4861 §4.6.4: ignored in the other messages
            }
            if (mtuOffset >= 0) {
                throw new DecodeException("ND MTU option", p, "appears a second time (the first is at offset "
                        + mtuOffset + ")");
            }
            mtu = Integer.toUnsignedLong(Wire.u32(buf, p + 4));
            mtuOffset = p;
        }
    }
}
