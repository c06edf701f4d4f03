package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * What a locked instruction per frame costs a handoff between two cores: the SPSC ring of the
 * packet-path baseline ({@link PacketPathBenchmark#ringBaseline}), 64-octet packets, with the
 * producer taking and releasing 0 to 3 uncontended spin locks per packet before its copy, as the
 * link's single-frame path takes its three (the free send buffers, the queue pair's send lock,
 * the receive queue's lock). The locks are the producer's own, each on its own lines: no other
 * thread touches them, so what they cost is the instruction itself, which waits until the
 * producer's earlier stores (the previous packet's slot, read by the other core) have reached
 * the other core. 0 locks is the baseline, in the same run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class LockedHandoffBenchmark {

    /** The ring, its consumer thread and the packet. */
    @State(Scope.Benchmark)
    public static class Ring {
        @Param({"0", "1", "2", "3"})
        public int locksPerPacket;
        SpscRing ring;
        MemorySegment packet;

        @Setup(Level.Trial)
        public void start() {
            packet = Arena.ofAuto().allocate(64);
            for (int i = 0; i < 64; i++) {
                packet.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            ring = new SpscRing(locksPerPacket);
        }

        @TearDown(Level.Trial)
        public void stop() {
            ring.drain();
            ring.close();
        }
    }

    /** One 64-octet packet handed to the consumer, after the locks. */
    @Benchmark
    public void handoff(Ring ring) {
        ring.ring.offer(ring.packet);
    }
}
