package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Packets per second delivered from one interface to another over the loopback fabric (one
 * sending thread, the link's receive thread), against the baseline measured in the same run:
 * an SPSC ring between two threads whose producer copies each frame into a slot and whose
 * consumer copies it out (packet rate at 64 octets, bandwidth at 2044). Each
 * benchmark has its own state, so that no other benchmark's thread runs while it is measured.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PacketPathBenchmark {

    /** The payload of every benchmark: 64 octets (packet rate) or the full link MTU, 2044 (bandwidth). */
    @State(Scope.Benchmark)
    public static class Payload {
        @Param({"64", "2044"})
        public int payloadBytes;
        MemorySegment bytes;

        @Setup(Level.Trial)
        public void fill() {
            bytes = Arena.ofAuto().allocate(payloadBytes);
            for (int i = 0; i < payloadBytes; i++) {
                bytes.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
        }
    }

    /** Two interfaces on the loopback fabric. */
    @State(Scope.Benchmark)
    public static class Links {
        LinkPair pair;

        @Setup(Level.Trial)
        public void start() throws Exception {
            pair = new LinkPair();
        }

        @TearDown(Level.Trial)
        public void stop() {
            pair.drain();
            pair.close();
        }
    }

    /** The SPSC ring and its consumer thread. */
    @State(Scope.Benchmark)
    public static class Ring {
        SpscRing ring;

        @Setup(Level.Trial)
        public void start() {
            ring = new SpscRing();
        }

        @TearDown(Level.Trial)
        public void stop() {
            ring.drain();
            ring.close();
        }
    }

    /** The stack: IPoIB header and copy into a pooled send buffer, UD send, delivery, dispatch. */
    @Benchmark
    public void stack(Links links, Payload payload) {
        links.pair.sendOne(payload.bytes);
    }

    /** Frames per transmit burst in {@link #stackBurst}. */
    static final int BURST = 16;

    /** The stack with transmit bursts: 16 frames copied into send buffers, then posted as one list. */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public void stackBurst(Links links, Payload payload) {
        links.pair.sendBurst(payload.bytes, BURST);
    }

    /**
     * Baseline: the same bytes moved between two threads through a bounded SPSC ring, copied into
     * a slot by the producer and out of it by the consumer: the work that cannot be avoided
     * (packet rate at 64 octets, bandwidth at 2044).
     */
    @Benchmark
    public void ringBaseline(Ring ring, Payload payload) {
        ring.ring.offer(payload.bytes);
    }

}
