package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * Packets per second delivered from one interface to another over the loopback fabric (one
 * sending thread, the link's receive thread), against the baselines measured in the same run:
 * an SPSC ring between two threads (packet rate) and a single-thread copy (bandwidth).
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class PacketPathBenchmark {

    /** 64 octets (packet rate) and the full link MTU, 2044 (bandwidth). */
    @Param({"64", "2044"})
    public int payloadBytes;

    private LinkPair links;
    private SpscRing ring;
    private MemorySegment payload;
    private MemorySegment copyTarget;

    @Setup(Level.Trial)
    public void setUp() throws Exception {
        links = new LinkPair();
        ring = new SpscRing();
        payload = Arena.ofAuto().allocate(payloadBytes);
        for (int i = 0; i < payloadBytes; i++) {
            payload.set(java.lang.foreign.ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        copyTarget = Arena.ofAuto().allocate(payloadBytes);
    }

    @TearDown(Level.Trial)
    public void tearDown() {
        links.drain();
        ring.drain();
        ring.close();
        links.close();
    }

    /** The stack: IPoIB header and copy into a pooled send buffer, UD send, delivery, dispatch. */
    @Benchmark
    public void stack() {
        links.sendOne(payload);
    }

    /** Baseline: the same bytes moved between two threads through a bounded SPSC ring. */
    @Benchmark
    public void ringBaseline() {
        ring.offer(payload);
    }

    /** Baseline: copying the same bytes in one thread. */
    @Benchmark
    public MemorySegment copyBaseline() {
        MemorySegment.copy(payload, 0, copyTarget, 0, payloadBytes);
        return copyTarget;
    }
}
