package ipoib.host.internal;

import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.runtime.PerThread;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Writes IP headers into per-thread scratch buffers, so that building a packet allocates
 * nothing: the caller writes the upper-layer data at {@link #upperOffset} and then the header.
 */
final class PacketWriter {
    /** The largest IP packet an interface carries: connected mode's MTU is 65 520 (IPOIB_CM_MTU). */
    static final int SCRATCH = 65536;
    static final int DEFAULT_TTL = 64;

    /** A per-thread buffer with cached slices of every length. */
    static final class Scratch {
        final MemorySegment buffer = MemorySegment.ofArray(new byte[SCRATCH]);
        /** The same octets as a ByteBuffer, for payloads given as one (absolute puts only). */
        final ByteBuffer view = buffer.asByteBuffer();
        /**
         * The IPv4 identification of this thread's next packet. Every packet is sent with DF and
         * never fragmented (an atomic datagram), whose identification RFC 6864 §4.2 lets a source
         * set to any value: a sequence per thread, not one shared counter that every sending
         * thread would increment atomically.
         */
        int identification;
        private final MemorySegment[] slices = new MemorySegment[SCRATCH + 1];

        MemorySegment slice(int length) {
            MemorySegment s = slices[length];
            if (s == null) {
                s = buffer.asSlice(0, length);
                slices[length] = s;
            }
            return s;
        }
    }

    /** Not a ThreadLocal: the threads of other bundles that send must not keep this bundle's classes after an update. */
    private static final PerThread<Scratch> SCRATCHES = new PerThread<>(Scratch::new);

    /** IPv4 TTL and IPv6 hop limit of the packets written (configuration {@code ttl}). */
    volatile int ttl = DEFAULT_TTL;

    static Scratch scratch() {
        return SCRATCHES.get();
    }

    static int upperOffset(boolean v6) {
        return v6 ? Ipv6Header.LENGTH : Ipv4Header.LENGTH;
    }

    /**
     * Writes the IP header for {@code upperLength} octets of upper-layer data at
     * {@link #upperOffset}: IPv4 with DF set (no fragmentation), or IPv6.
     *
     * @return the packet length
     */
    int writeIp(Scratch s, boolean v6, int protocol, long srcHigh, long srcLow, long dstHigh, long dstLow,
                int upperLength) {
        if (v6) {
            Ipv6Header.write(s.buffer, 0, upperLength, protocol, ttl, srcHigh, srcLow, dstHigh, dstLow);
            return Ipv6Header.LENGTH + upperLength;
        }
        Ipv4Header.write(s.buffer, 0, 0, Ipv4Header.LENGTH + upperLength, s.identification++ & 0xFFFF,
                true, ttl, protocol, (int) srcLow, (int) dstLow);
        return Ipv4Header.LENGTH + upperLength;
    }
}
