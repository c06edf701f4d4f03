package ipoib.codec.iba;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Random and mutated input for every decoder of the package: nothing but DecodeException escapes. */
class IbaFuzzTest {
    private static final int RANDOM = 2_000;
    private static final int MUTATED = 2_000;

    /** Valid packets; half of them re-sealed after mutation so that decoding gets past the VCRC. */
    private static List<byte[]> validPackets() {
        List<byte[]> packets = new ArrayList<>();
        PacketArbitraries.packets(200).sampleStream().limit(40).forEach(d -> packets.add(d.build()));
        packets.add(KnownPackets.local());
        packets.add(KnownPackets.global());
        return packets;
    }

    @Test
    void headerViews() {
        List<byte[]> seeds = List.of(KnownPackets.global(), KnownPackets.local());
        Lrh lrh = new Lrh();
        Grh grh = new Grh();
        Bth bth = new Bth();
        Deth deth = new Deth();
        DecoderFuzz.run("LRH", 1, RANDOM, 16, MUTATED, () -> seeds, (s, o, l) -> lrh.decode(s.asSlice(0, Math.min(s.byteSize(), o + l)), o));
        DecoderFuzz.run("GRH", 2, RANDOM, 60, MUTATED, () -> seeds, (s, o, l) -> grh.decode(s, o + 8));
        DecoderFuzz.run("BTH", 3, RANDOM, 24, MUTATED, () -> seeds, (s, o, l) -> bth.decode(s, o + 8));
        DecoderFuzz.run("DETH", 4, RANDOM, 16, MUTATED, () -> seeds, (s, o, l) -> deth.decode(s, o + 20));
    }

    @Test
    void udPackets() {
        UdPacket packet = new UdPacket();
        Random reseal = new Random(5);
        int accepted = DecoderFuzz.run("UD packet", 6, RANDOM, 400, MUTATED * 2, IbaFuzzTest::validPackets,
                (segment, offset, length) -> {
                    long end = offset + length;
                    if (end <= segment.byteSize() && length >= UdPacket.LOCAL_OVERHEAD && reseal.nextBoolean()) {
                        // re-seal like a switch (VCRC) and sometimes like the sender (ICRC) to reach the header checks
                        int lnh = segment.get(java.lang.foreign.ValueLayout.JAVA_BYTE, offset + 1) & 3;
                        int headers = lnh == 3 ? 68 : 28;
                        if (lnh >= 2 && length >= headers + 6 && reseal.nextBoolean()) {
                            Icrc.write(segment, offset, length - 6);
                        }
                        Vcrc.write(segment, offset, length - 2);
                    }
                    packet.decode(segment, offset, length);
                    assertTrue(packet.payloadOffset() + packet.payloadLength() <= end - 6);
                });
        assertTrue(accepted > 0, "some mutated packets must still decode");
    }
}
