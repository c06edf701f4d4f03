package ipoib.verbs.loopback.fabric;

import ipoib.codec.DecodeException;
import ipoib.codec.iba.UdPacket;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Renders the packets the fabric carries as full IBA UD packets (LRH, GRH, BTH, DETH, payload,
 * ICRC, VCRC) through the codec: for captures, and to corrupt a packet and check it as a
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
