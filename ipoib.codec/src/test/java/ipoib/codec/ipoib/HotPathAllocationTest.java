package ipoib.codec.ipoib;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.EtherType;
import ipoib.codec.DecodeException;
import ipoib.codec.iba.Grh;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * The data-path methods allocate nothing: after a warm-up, 20,000 rounds of encoding and
 * decoding the encapsulation header, the GRH and the link-layer address must not allocate even
 * one object per hundred rounds (one object per round would be 320 KB or more).
 */
class HotPathAllocationTest {

    private static final int ROUNDS = 20_000;

    @Test
    void dataPathDoesNotAllocate() throws DecodeException {
        var threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment buf = arena.allocate(128);
            Grh view = new Grh();
            long sink = 0;
            for (int i = 0; i < 5 * ROUNDS; i++) {
                sink += round(buf, view, i);
            }
            long before = threads.getCurrentThreadAllocatedBytes();
            for (int i = 0; i < ROUNDS; i++) {
                sink += round(buf, view, i);
            }
            long allocated = threads.getCurrentThreadAllocatedBytes() - before;
            assertTrue(allocated < 16L * ROUNDS / 100, allocated + " octets allocated in " + ROUNDS + " rounds (" + sink + ")");
        }
    }

    private static long round(MemorySegment buf, Grh view, int i) throws DecodeException {
        Grh.write(buf, 0, i & 0xFF, i & 0xFFFFF, 64, 1, 0xfe80_0000_0000_0000L, i, 0xff12_401b_ffff_0000L, 0xffff_ffffL);
        EncapsulationHeader.write(buf, 40, EtherType.IPV4);
        LinkAddressCodec.write(buf, 44, 0, i & 0xFFFFFF, 0xfe80_0000_0000_0000L, i);
        LinkAddressCodec.write(buf, 64, 0x80, i & 0xFFFFFF, 0xfe80_0000_0000_0000L, i);
        UdReceiveBuffer.grh(buf, 0, true, view);
        long s = view.flowLabel() + view.sourceGidInterfaceId() + view.destinationGidPrefix();
        s += UdReceiveBuffer.etherType(buf, 0, 100) + UdReceiveBuffer.payloadLength(buf, 0, 100);
        s += LinkAddressCodec.qpn(buf, 44) + LinkAddressCodec.gidPrefix(buf, 44) + LinkAddressCodec.gidInterfaceId(buf, 44)
                + LinkAddressCodec.flags(buf, 64);
        s += LinkAddressCodec.samePeer(buf, 44, buf, 64) ? 1 : 0;
        s += LinkAddressCodec.isMulticast(buf, 44) ? 1 : 0;
        return s;
    }
}
