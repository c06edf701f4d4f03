package ipoib.codec;

import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.fail;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.Qpn;
import ipoib.api.link.EtherType;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.arp.ArpOperation;
import ipoib.codec.arp.ArpPacket;
import ipoib.codec.iba.Grh;
import ipoib.codec.ipoib.EncapsulationHeader;
import ipoib.codec.ipoib.LinkAddressCodec;
import ipoib.codec.ipoib.UdReceiveBuffer;
import ipoib.codec.nd.Icmpv6Checksum;
import ipoib.codec.nd.InterfaceIdentifiers;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.codec.nd.NeighborAdvertisement;
import ipoib.codec.nd.NeighborSolicitation;
import ipoib.codec.nd.PrefixInformation;
import ipoib.codec.nd.Redirect;
import ipoib.codec.nd.RouterAdvertisement;
import ipoib.codec.nd.RouterSolicitation;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Random and mutated input for every decoder of the ipoib, arp and nd packages: whatever comes
 * in, nothing but {@link DecodeException} may come out (and the classifier never throws). The
 * seed is fixed so a failure reproduces; each failure prints the input in hex.
 *
 * <p>About 50,000 inputs in all: 4,000 random and 6,000 mutated frames for each of the five
 * decoder families. Mutated ND packets mostly get their checksum repaired, so the option walk
 * and the per-message rules are exercised and not just the checksum check.
 */
class IpCodecsFuzzTest {

    private static final long SEED = 0x1B_401BL;
    private static final int RANDOM_PER_DECODER = 4_000;
    private static final int MUTATED_PER_DECODER = 6_000;

    private interface Decoder {
        void decode(MemorySegment buf, long offset, long length, Random rnd) throws DecodeException;
    }

    private static final Grh GRH_VIEW = new Grh();
    private static final LinkAddress PEER = new LinkAddress(0, new Qpn(0x48), Gid.parse("fe80::2:c903:0:1"));

    private static final List<Decoder> ENCAPSULATION = List.of(
            (b, o, l, r) -> EncapsulationHeader.etherType(b, o),
            (b, o, l, r) -> UdReceiveBuffer.payloadLength(b, o, l),
            (b, o, l, r) -> UdReceiveBuffer.etherType(b, o, l));
    private static final List<Decoder> GRH = List.of(
            (b, o, l, r) -> UdReceiveBuffer.grh(b, o, true, GRH_VIEW),
            (b, o, l, r) -> UdReceiveBuffer.grh(b, o, r.nextBoolean(), GRH_VIEW));
    private static final List<Decoder> LINK_ADDRESS = List.of(
            (b, o, l, r) -> LinkAddressCodec.flags(b, o),
            (b, o, l, r) -> LinkAddressCodec.qpn(b, o),
            (b, o, l, r) -> LinkAddressCodec.gidPrefix(b, o),
            (b, o, l, r) -> LinkAddressCodec.gidInterfaceId(b, o),
            (b, o, l, r) -> LinkAddressCodec.isMulticast(b, o),
            (b, o, l, r) -> LinkAddressCodec.samePeer(b, o, PEER),
            (b, o, l, r) -> LinkAddressCodec.samePeer(b, o, b, 0),
            (b, o, l, r) -> assertNotNull(LinkAddressCodec.read(b, o)),
            (b, o, l, r) -> assertNotNull(LinkAddressCodec.readPeer(b, o)));
    private static final List<Decoder> ARP = List.of(
            (b, o, l, r) -> assertNotNull(ArpCodec.decode(b, o)),
            (b, o, l, r) -> {
                int etherType = switch (r.nextInt(4)) {
                    case 0 -> EtherType.ARP;
                    case 1 -> EtherType.RARP;
                    case 2 -> EtherType.IPV4;
                    default -> r.nextInt();
                };
                assertNotNull(ArpCodec.decode(b, o, etherType));
            });
    private static final List<Decoder> ND = List.of(
            (b, o, l, r) -> NdCodec.isNeighborDiscovery(b, o, l),
            (b, o, l, r) -> assertNotNull(NdCodec.decode(b, o, l)));

    // ---- random frames

    @Test
    void randomEncapsulationHeaders() {
        random(ENCAPSULATION, 60, new byte[0]);
    }

    @Test
    void randomGrhs() {
        random(GRH, 48, new byte[] {0x60});
    }

    @Test
    void randomLinkAddresses() {
        random(LINK_ADDRESS, 28, new byte[0]);
    }

    @Test
    void randomArpPackets() {
        random(ARP, 64, new byte[] {0x00, 0x20, 0x08, 0x00, 0x14, 0x04, 0x00});
    }

    @Test
    void randomNdPackets() {
        // Half of the frames look like an ND packet up to the checksum (version 6, a payload length
        // that mostly fits, next header 58, hop limit 255, an ND type, code 0, a repaired checksum)
        // so that the option walk and the per-message rules see random bodies.
        random(ND, 160, (b, rnd) -> {
            if (b.length < 48) {
                return;
            }
            b[0] = 0x60;
            b[4] = 0;
            b[5] = (byte) (b.length - 40 - (rnd.nextInt(4) == 0 ? rnd.nextInt(3) : 0));
            b[6] = 58;
            b[7] = (byte) 255;
            b[40] = (byte) (133 + rnd.nextInt(5));
            b[41] = 0;
            if (rnd.nextInt(8) == 0) {
                b[8] = (byte) 0xFE; // link-local source for RA and Redirect
                b[9] = (byte) 0x80;
            }
            for (int i = 48; i < b.length && rnd.nextBoolean(); i += 8) {
                b[i + 1 < b.length ? i + 1 : i] = (byte) rnd.nextInt(6); // small option lengths
            }
            repair(b);
        });
    }

    private static void random(List<Decoder> decoder, int maxLength, byte[] plausibleStart) {
        random(decoder, maxLength, (b, rnd) -> System.arraycopy(plausibleStart, 0, b, 0,
                Math.min(plausibleStart.length, b.length)));
    }

    /** Random frames; half of them are first given a plausible start by {@code shape}. */
    private static void random(List<Decoder> decoder, int maxLength, java.util.function.BiConsumer<byte[], Random> shape) {
        Random rnd = new Random(SEED);
        for (int i = 0; i < RANDOM_PER_DECODER; i++) {
            byte[] b = new byte[rnd.nextInt(maxLength + 1)];
            rnd.nextBytes(b);
            if (rnd.nextBoolean()) {
                shape.accept(b, rnd);
            }
            feed(decoder, b, rnd);
        }
    }

    // ---- mutated frames

    @Test
    void mutatedEncapsulationHeaders() {
        MemorySegment s = MemorySegment.ofArray(new byte[44 + 8]);
        EncapsulationHeader.write(s, 40, EtherType.IPV6);
        mutated(ENCAPSULATION, List.of(bytes(s)), false);
    }

    @Test
    void mutatedGrhs() {
        MemorySegment s = MemorySegment.ofArray(new byte[40]);
        new Grh().flowLabel(0x12345).payloadLength(300).hopLimit(64).sourceGid(Gid.parse("fe80::2:c903:0:1"))
                .destinationGid(Gid.parse("ff12:401b:ffff::ffff:ffff")).encode(s, 0);
        mutated(GRH, List.of(bytes(s)), false);
    }

    @Test
    void mutatedLinkAddresses() {
        MemorySegment s = MemorySegment.ofArray(new byte[20]);
        LinkAddressCodec.write(s, 0, PEER);
        mutated(LINK_ADDRESS, List.of(bytes(s)), false);
    }

    @Test
    void mutatedArpPackets() {
        List<byte[]> seeds = new java.util.ArrayList<>();
        for (ArpOperation op : ArpOperation.values()) {
            MemorySegment s = MemorySegment.ofArray(new byte[56]);
            ArpCodec.encode(s, 0, new ArpPacket(op, PEER, 0xC0000201, ArpPacket.UNKNOWN_HARDWARE_ADDRESS, 0xC0000202));
            seeds.add(bytes(s));
        }
        mutated(ARP, seeds, false);
    }

    @Test
    void mutatedNdPackets() {
        List<byte[]> seeds = ndSeeds().stream().map(m -> {
            MemorySegment s = MemorySegment.ofArray(new byte[NdCodec.encodedLength(m)]);
            NdCodec.encode(s, 0, m);
            return bytes(s);
        }).toList();
        mutated(ND, seeds, true);
    }

    private static void mutated(List<Decoder> decoder, List<byte[]> seeds, boolean repairChecksum) {
        Random rnd = new Random(SEED ^ seeds.size());
        for (int i = 0; i < MUTATED_PER_DECODER; i++) {
            byte[] b = seeds.get(rnd.nextInt(seeds.size())).clone();
            int mutations = 1 + rnd.nextInt(4);
            for (int m = 0; m < mutations; m++) {
                b = mutate(b, rnd);
            }
            if (repairChecksum && rnd.nextInt(10) < 8) {
                repair(b);
            }
            feed(decoder, b, rnd);
        }
    }

    private static byte[] mutate(byte[] b, Random rnd) {
        switch (rnd.nextInt(6)) {
            case 0 -> { // flip one bit
                if (b.length > 0) {
                    b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                }
            }
            case 1 -> { // boundary value in one octet
                if (b.length > 0) {
                    b[rnd.nextInt(b.length)] = (byte) new int[] {0, 1, 2, 3, 4, 0x7F, 0x80, 0xFE, 0xFF}[rnd.nextInt(9)];
                }
            }
            case 2 -> { // random octet
                if (b.length > 0) {
                    b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                }
            }
            case 3 -> { // truncate
                b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length + 1));
            }
            case 4 -> { // extend with random octets
                byte[] longer = java.util.Arrays.copyOf(b, b.length + 1 + rnd.nextInt(24));
                for (int i = b.length; i < longer.length; i++) {
                    longer[i] = (byte) rnd.nextInt(256);
                }
                b = longer;
            }
            default -> { // an ND option length octet (offset 65 and beyond are option territory)
                if (b.length > 66) {
                    int at = 41 + rnd.nextInt(b.length - 41);
                    b[at] = (byte) new int[] {0, 1, 2, 3, 4, 5, 0xFF}[rnd.nextInt(7)];
                }
            }
        }
        return b;
    }

    /** Sets the ICMPv6 checksum right when the packet is long enough to hold what it claims. */
    private static void repair(byte[] b) {
        if (b.length < 44) {
            return;
        }
        int payload = ((b[4] & 0xFF) << 8) | (b[5] & 0xFF);
        if (payload < 4 || payload > b.length - 40) {
            return;
        }
        MemorySegment s = MemorySegment.ofArray(b);
        Wire.put16(s, 42, Icmpv6Checksum.compute(s, 0, payload));
    }

    // ---- harness

    private static void feed(List<Decoder> decoders, byte[] input, Random rnd) {
        MemorySegment buf = MemorySegment.ofArray(input);
        // Mostly the natural offset and length; one call in four gets an odd one.
        long offset = 0;
        long length = input.length;
        switch (rnd.nextInt(16)) {
            case 0 -> offset = rnd.nextBoolean() ? -1 - rnd.nextInt(4) : input.length + rnd.nextInt(4);
            case 1 -> {
                offset = rnd.nextInt(8);
                length = Math.max(0, input.length - offset);
            }
            case 2 -> length = rnd.nextBoolean() ? -1 - rnd.nextInt(4) : Long.MAX_VALUE - rnd.nextInt(4);
            case 3 -> length = rnd.nextInt(200);
            default -> { }
        }
        for (Decoder decoder : decoders) {
            try {
                decoder.decode(buf, offset, length, rnd);
            } catch (DecodeException e) {
                if (e.field() == null || e.field().isEmpty() || e.getMessage() == null) {
                    fail("DecodeException without a field for input " + HexFormat.of().formatHex(input));
                }
            } catch (Throwable t) {
                throw new AssertionError("seed " + SEED + ": " + t + " escaped for offset " + offset + ", length "
                        + length + ", input " + HexFormat.of().formatHex(input), t);
            }
        }
    }

    private static byte[] bytes(MemorySegment s) {
        return s.toArray(ValueLayout.JAVA_BYTE);
    }

    private static List<NdMessage> ndSeeds() {
        var me = InterfaceIdentifiers.linkLocal(0x0202_c903_0000_0001L);
        var peer = InterfaceIdentifiers.linkLocal(0x0202_c903_0000_0002L);
        var router = InterfaceIdentifiers.linkLocal(1);
        var allNodes = NeighborAdvertisement.ALL_NODES;
        var global = InterfaceIdentifiers.address(0x2001_0db8_0000_0000L, 0x99);
        NeighborSolicitation ns = NeighborSolicitation.resolve(me, peer, PEER);
        return List.of(ns, NeighborSolicitation.duplicateAddressDetection(peer),
                NeighborAdvertisement.answer(ns, peer, true, PEER),
                new RouterSolicitation(me, InterfaceIdentifiers.address(0xFF02_0000_0000_0000L, 2), Optional.of(PEER)),
                new RouterAdvertisement(router, allNodes, 64, true, false, 1800, 0, 0, Optional.of(PEER),
                        OptionalLong.of(2044), List.of(new PrefixInformation(64, true, true, PrefixInformation.INFINITE,
                                PrefixInformation.INFINITE, InterfaceIdentifiers.address(0x2001_0db8_0000_0000L, 0)))),
                new Redirect(router, me, peer, global, Optional.of(PEER)));
    }
}
