package ipoib.codec.fuzz;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Mgid;
import ipoib.api.Qpn;
import ipoib.codec.DecodeException;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.iba.Bth;
import ipoib.codec.iba.Deth;
import ipoib.codec.iba.Grh;
import ipoib.codec.iba.Icrc;
import ipoib.codec.iba.Lrh;
import ipoib.codec.iba.UdPacket;
import ipoib.codec.iba.Vcrc;
import ipoib.codec.ip.IcmpEcho;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.ip.Udp;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.codec.ipoib.LinkAddressCodec;
import ipoib.codec.ipoib.UdReceiveBuffer;
import ipoib.codec.mad.InformInfo;
import ipoib.codec.mad.MadHeader;
import ipoib.codec.mad.Notice;
import ipoib.codec.mad.RmppHeader;
import ipoib.codec.mad.SaHeader;
import ipoib.codec.mad.SaMad;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mcast.MulticastMapping;
import ipoib.codec.nd.Icmpv6Checksum;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.pcap.ErfHeader;
import ipoib.codec.pcap.IpoibPseudoHeader;
import ipoib.codec.pcap.PcapngReader;
import java.lang.foreign.MemorySegment;

/**
 * The decode entry points the fuzz tests drive, one method per family, each taking raw input
 * octets. A decoder may return or throw {@link DecodeException} naming a field; anything else
 * escaping (an {@link IndexOutOfBoundsException}, a {@link NullPointerException}, an
 * {@link IllegalArgumentException} from a value type built from wire octets, an endless loop)
 * is a finding. Every method also checks that a DecodeException names its field.
 */
final class Targets {
    private Targets() {}

    /** A decode step that may throw only {@link DecodeException}. */
    interface Step {
        void run() throws DecodeException;
    }

    /** Runs a decode step: its DecodeException is the expected outcome for bad input. */
    static boolean decodes(Step step) {
        try {
            step.run();
            return true;
        } catch (DecodeException e) {
            if (e.field() == null || e.field().isBlank() || e.getMessage() == null) {
                throw new AssertionError("DecodeException without a field: " + e, e);
            }
            return false;
        }
    }

    /** ARP (RFC 826 over IPoIB, RFC 4391 §9.2), with and without the EtherType check. */
    static boolean arp(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        decodes(() -> ArpCodec.decode(s, 0, EncapsulationHeader.LENGTH <= input.length ? input[0] & 0xFF : 0x0806));
        return decodes(() -> ArpCodec.decode(s, 0));
    }

    /** IPv4 and IPv6 headers, then what the host layer reads behind them: UDP and ICMP echo. */
    static boolean ip(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        // Accepted: the IP header and the UDP datagram or echo behind it validate.
        boolean[] accepted = new boolean[1];
        if (input.length > 0 && (input[0] & 0xF0) == 0x60) {
            decodes(() -> {
                int payload = Ipv6Header.validate(s, 0, input.length);
                Ipv6Header.nextHeader(s, 0);
                Ipv6Header.hopLimit(s, 0);
                Ipv6Header.sourceHigh(s, 0);
                Ipv6Header.destinationLow(s, 0);
                if (decodes(() -> Udp.validateIpv6(s, 0, payload))) {
                    accepted[0] = true;
                    Udp.sourcePort(s, Ipv6Header.LENGTH);
                    Udp.destinationPort(s, Ipv6Header.LENGTH);
                    Udp.length(s, Ipv6Header.LENGTH);
                }
                if (decodes(() -> IcmpEcho.validateIpv6(s, 0, payload))) {
                    accepted[0] = true;
                    IcmpEcho.type(s, Ipv6Header.LENGTH);
                    IcmpEcho.identifier(s, Ipv6Header.LENGTH);
                    IcmpEcho.sequence(s, Ipv6Header.LENGTH);
                }
                decodes(() -> Icmpv6Checksum.isValid(s, 0, payload));
            });
        } else {
            decodes(() -> {
                int headerLength = Ipv4Header.validate(s, 0, input.length);
                int payload = Ipv4Header.totalLength(s, 0) - headerLength;
                Ipv4Header.ttl(s, 0);
                Ipv4Header.protocol(s, 0);
                Ipv4Header.isFragment(s, 0);
                Ipv4Header.source(s, 0);
                Ipv4Header.destination(s, 0);
                if (decodes(() -> Udp.validateIpv4(s, 0, headerLength, payload))) {
                    accepted[0] = true;
                    Udp.sourcePort(s, headerLength);
                    Udp.length(s, headerLength);
                }
                if (decodes(() -> IcmpEcho.validateIpv4(s, headerLength, payload))) {
                    accepted[0] = true;
                    IcmpEcho.type(s, headerLength);
                    IcmpEcho.code(s, headerLength);
                    IcmpEcho.sequence(s, headerLength);
                }
            });
        }
        return accepted[0];
    }

    /** Neighbor Discovery (RFC 4861 with the IPoIB link-layer option of RFC 4391 §9.1). */
    static boolean nd(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        return decodes(() -> NdCodec.decode(s, 0, input.length));
    }

    /** A whole IBA UD packet (LRH, GRH, BTH, DETH, ICRC, VCRC) and each header view alone. */
    static boolean ibaPacket(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        boolean accepted = decodes(() -> {
            UdPacket p = new UdPacket().decode(s, 0, input.length);
            p.payloadOffset();
            p.payloadLength();
            p.lrh().destinationLid();
            p.bth().destinationQp();
        });
        decodes(() -> new Lrh().decode(s, 0));
        decodes(() -> new Grh().decode(s, 0).sourceGid());
        decodes(() -> new Bth().decode(s, 0));
        decodes(() -> new Deth().decode(s, 0));
        decodes(() -> Icrc.verify(s, 0, input.length - Icrc.LENGTH - Vcrc.LENGTH));
        decodes(() -> Vcrc.verify(s, 0, input.length - Vcrc.LENGTH));
        return accepted;
    }

    /** What the IPoIB receive path reads from a UD receive buffer (GRH area, encapsulation header). */
    static boolean ipoibReceive(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        boolean grhPresent = input.length > 0 && (input[0] & 1) == 1;
        Grh view = new Grh();
        decodes(() -> UdReceiveBuffer.grh(s, 0, grhPresent, view));
        decodes(() -> UdReceiveBuffer.etherType(s, 0, input.length));
        decodes(() -> UdReceiveBuffer.payloadLength(s, 0, input.length));
        decodes(() -> EncapsulationHeader.etherType(s, 0));
        return decodes(() -> UdReceiveBuffer.grh(s, 0, grhPresent, view))
                && decodes(() -> UdReceiveBuffer.payloadLength(s, 0, input.length));
    }

    /** The 20-octet IPoIB link-layer address (RFC 4391 §9.1.1) as ARP and ND carry it. */
    static boolean linkAddress(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        LinkAddress peer = new LinkAddress(0, new Qpn(0x48), Gid.parse("fe80::2:c903:0:1"));
        decodes(() -> LinkAddressCodec.read(s, 0));
        decodes(() -> LinkAddressCodec.readPeer(s, 0));
        decodes(() -> LinkAddressCodec.flags(s, 0));
        decodes(() -> LinkAddressCodec.qpn(s, 0));
        decodes(() -> LinkAddressCodec.gidPrefix(s, 0));
        decodes(() -> LinkAddressCodec.gidInterfaceId(s, 0));
        decodes(() -> LinkAddressCodec.isMulticast(s, 0));
        decodes(() -> LinkAddressCodec.samePeer(s, 0, peer));
        // An MGID (a value type that refuses a non-multicast GID) from octets that begin with ff.
        if (input.length >= 16 && input[0] == (byte) 0xFF) {
            Mgid mgid = Mgid.of(s.get(ipoib.codec.Wire.U64, 0), s.get(ipoib.codec.Wire.U64, 8));
            if (MulticastMapping.isIpoibMgid(mgid)) {
                MulticastMapping.family(mgid);
                MulticastMapping.scope(mgid);
                MulticastMapping.pKey(mgid);
            }
        }
        return decodes(() -> LinkAddressCodec.read(s, 0));
    }

    /** Management datagrams: MAD, RMPP and SA headers, and each SA record with its API conversion. */
    static boolean mad(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        decodes(() -> MadHeader.decode(s, 0));
        decodes(() -> RmppHeader.decode(s, 24));
        decodes(() -> SaHeader.decode(s, 36));
        decodes(() -> SaMad.decode(s, 0));
        // The records at the SA data offset (56) and at 0, as answers and reports carry them.
        for (long at : new long[] {0, 56}) {
            decodes(() -> SaPathRecord.decode(s, at).toApi());
            decodes(() -> SaMcMemberRecord.decode(s, at).toApi());
            decodes(() -> InformInfo.decode(s, at));
            decodes(() -> Notice.decode(s, at).toGroupTrap());
        }
        return decodes(() -> SaMad.decode(s, 0));
    }

    /** Communication Management MADs (IBA 12.6) and the IPoIB-CM private data (RFC 4755 §4). */
    static boolean cm(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        boolean accepted = decodes(() -> {
            ipoib.codec.cm.CmMad mad = ipoib.codec.cm.CmMad.decode(s, 0);
            mad.header();
            ipoib.codec.cm.CmPrivateData data = switch (mad.message()) {
                case ipoib.codec.cm.CmReq m -> m.privateData();
                case ipoib.codec.cm.CmRep m -> m.privateData();
                case ipoib.codec.cm.CmMra m -> m.privateData();
                case ipoib.codec.cm.CmRej m -> m.privateData();
                case ipoib.codec.cm.CmRtu m -> m.privateData();
                case ipoib.codec.cm.CmDreq m -> m.privateData();
                case ipoib.codec.cm.CmDrep m -> m.privateData();
            };
            decodes(() -> ipoib.codec.cm.IpoibCm.udQpn(data));
            decodes(() -> ipoib.codec.cm.IpoibCm.receiveMtu(data));
        });
        // Each message alone, where a CM MAD carries it (behind the 24-octet MAD header).
        decodes(() -> ipoib.codec.cm.CmReq.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmRep.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmMra.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmRej.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmRtu.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmDreq.decode(s, 24));
        decodes(() -> ipoib.codec.cm.CmDrep.decode(s, 24));
        return accepted;
    }

    /** pcapng files (the capture reader), ERF headers and the IPoIB pseudo-header (LINKTYPE 242). */
    static boolean capture(byte[] input) {
        MemorySegment s = MemorySegment.ofArray(input);
        boolean pcapng = decodes(() -> {
            PcapngReader reader = new PcapngReader(s);
            // Every block consumes at least 12 octets: a reader that loops is a finding.
            for (int blocks = 0; reader.next(); blocks++) {
                if (blocks > input.length / 12 + 1) {
                    throw new AssertionError("pcapng reader returned " + blocks + " packets from " + input.length
                            + " octets");
                }
                reader.timestampNanos();
                reader.data();
                reader.linkType();
            }
        });
        decodes(() -> ErfHeader.decode(s, 0).epochNanos());
        Grh view = new Grh();
        decodes(() -> {
            IpoibPseudoHeader.destinationGid(s, 0);
            if (IpoibPseudoHeader.isGrh(s, 0)) {
                IpoibPseudoHeader.readGrh(s, 0, view);
            } else {
                IpoibPseudoHeader.destinationQpn(s, 0);
            }
        });
        return pcapng && input.length > 0 || decodes(() -> ErfHeader.decode(s, 0));
    }
}
