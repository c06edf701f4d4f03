package ipoib.verbs.loopback.fabric;

import ipoib.codec.DecodeException;
import ipoib.codec.iba.Bth;
import ipoib.codec.iba.Icrc;
import ipoib.codec.iba.Lrh;
import ipoib.codec.iba.UdPacket;
import ipoib.codec.iba.Vcrc;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Renders the packets the fabric carries as full IBA packets — UD (LRH, GRH, BTH, DETH, payload,
 * ICRC, VCRC) and RC (LRH, BTH, AETH on acknowledgements, payload, ICRC, VCRC) — through the codec: for captures, and to corrupt a packet and check it as a
 * receiving port would.
 */
public final class IbaPackets {
    private IbaPackets() {}

    /** The whole packet, CRCs included. */
    public static byte[] render(WireTap.Packet p) {
        UdPacket packet = new UdPacket().global(p.grh());
        packet.lrh().serviceLevel(p.serviceLevel()).destinationLid(p.dlid()).sourceLid(p.slid());
        if (p.grh()) {
            packet.grh().trafficClass(p.trafficClass()).flowLabel(p.flowLabel()).hopLimit(p.hopLimit())
                    .sourceGid(p.sgid()).destinationGid(p.dgid());
        }
        packet.bth().partitionKey(p.pkey()).destinationQp(p.destinationQpn());
        packet.deth().queueKey(p.qkey()).sourceQp(p.sourceQpn());
        byte[] wire = new byte[UdPacket.encodedLength(p.grh(), p.payload().length)];
        MemorySegment out = MemorySegment.ofArray(wire);
        packet.encode(out, 0, MemorySegment.ofArray(p.payload()), 0, p.payload().length);
        return wire;
    }

    /**
     * An RC packet, CRCs included: LRH, BTH (the RC opcode, AckReq, PSN, pad count), AETH for an
     * acknowledgement, payload, pad, ICRC, VCRC (IBA 9.2, 9.7, 7.8).
     */
    public static byte[] renderRc(WireTap.RcPacket p) {
        int pad = -p.payload().length & 3;
        int headers = Lrh.LENGTH + Bth.LENGTH + (p.syndrome() >= 0 ? AETH_LENGTH : 0);
        int total = headers + p.payload().length + pad + Icrc.LENGTH + Vcrc.LENGTH;
        byte[] wire = new byte[total];
        MemorySegment out = MemorySegment.ofArray(wire);
        new Lrh().linkVersion(Lrh.LINK_VERSION).serviceLevel(p.serviceLevel()).linkNextHeader(Lrh.LNH_IBA_LOCAL)
                .destinationLid(p.dlid()).sourceLid(p.slid()).packetLengthWords((total - Vcrc.LENGTH) / 4)
                .encode(out, 0);
        new Bth().opcode(p.opcode()).padCount(pad).transportVersion(Bth.TRANSPORT_VERSION).partitionKey(p.pkey())
                .destinationQp(p.destinationQpn()).ackRequest(p.ackRequest()).packetSequenceNumber(p.psn())
                .encode(out, Lrh.LENGTH);
        if (p.syndrome() >= 0) {
            int aeth = p.syndrome() << 24 | p.msn() & 0xFF_FFFF;
            out.set(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                    Lrh.LENGTH + Bth.LENGTH, aeth);
        }
        System.arraycopy(p.payload(), 0, wire, headers, p.payload().length);
        Icrc.write(out, 0, total - Vcrc.LENGTH - Icrc.LENGTH);
        Vcrc.write(out, 0, total - Vcrc.LENGTH);
        return wire;
    }

    /** The ACK extended transport header (IBA 9.3.5): syndrome and MSN. */
    static final int AETH_LENGTH = 4;

    /**
     * Flips one random bit of the rendered packet and decodes it as a receiver would.
     *
     * @return true when the ICRC/VCRC (or a header check) caught the corruption
     */
    static boolean corruptAndCheck(WireTap.Packet p, SplittableRandom random) {
        byte[] wire = render(p);
        int bit;
        synchronized (random) {
            bit = random.nextInt(wire.length * 8);
        }
        wire[bit >>> 3] ^= (byte) (1 << (bit & 7));
        try {
            new UdPacket().decode(MemorySegment.ofArray(wire), 0, wire.length);
            return false;
        } catch (DecodeException expected) {
            return true;
        }
    }
}
