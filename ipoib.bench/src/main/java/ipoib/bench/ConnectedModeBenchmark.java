package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * Connected mode (RFC 4755) on the loopback fabric: frames of the connected-mode MTU, 65 520
 * octets, over one reliable connection (one sending thread, the connection's completion thread
 * delivering), compared in the report with datagram mode's 2 044-octet frames measured in the
 * same run ({@link PacketPathBenchmark}), as octets per second; and the connection set-up time,
 * REQ sent to RTU sent, over CM MADs on the ports' QP1.
 */
public class ConnectedModeBenchmark {
    /** IPOIB_CM_MTU. */
    static final int CM_MTU = 65520;

    /** Two interfaces in connected mode with a connection up. */
    @State(Scope.Benchmark)
    public static class Connected {
        LinkPair pair;
        MemorySegment payload;

        @Setup(Level.Trial)
        public void start() throws Exception {
            pair = new LinkPair(true);
            payload = Arena.ofAuto().allocate(CM_MTU);
            for (int i = 0; i < CM_MTU; i++) {
                payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            pair.drain();
            pair.close();
        }
    }

    /** Frames of 65 520 octets over RC (frames/s; the report multiplies by the size). */
    @Benchmark
    @BenchmarkMode(Mode.Throughput)
    @OutputTimeUnit(TimeUnit.SECONDS)
    public void rc65520(Connected c) {
        c.pair.sendOne(c.payload);
    }

    /** Two interfaces in connected mode; every operation sets up a new connection. */
    @State(Scope.Benchmark)
    public static class SetUps {
        LinkPair pair;
        final MemorySegment frame = MemorySegment.ofArray(new byte[16]);
        long[] setups = new long[1 << 16];
        int count;

        @Setup(Level.Trial)
        public void start() throws Exception {
            pair = new LinkPair(true);
        }

        @TearDown(Level.Trial)
        public void stop() {
            long[] s = Arrays.copyOf(setups, count);
            Arrays.sort(s);
            if (s.length > 0) {
                BenchmarkReport.note("connection set-up, REQ sent to RTU sent (µs, " + s.length + " set-ups)",
                        String.format(Locale.ROOT, "p50 %.1f, p90 %.1f, p99 %.1f", s[s.length / 2] / 1e3,
                                s[(int) (s.length * 0.9)] / 1e3, s[Math.min(s.length - 1, (int) (s.length * 0.99))] / 1e3));
            }
            pair.drain();
            pair.close();
        }
    }

    /** Tear down and set up a connection (DREQ/DREP, then REQ/REP/RTU and the first frame). */
    @Benchmark
    @BenchmarkMode(Mode.SampleTime)
    @OutputTimeUnit(TimeUnit.MICROSECONDS)
    public long connect(SetUps s) throws InterruptedException {
        long nanos = s.pair.sender.connectionSetupNanos(s.pair.path, s.pair.receiverAddress, LinkPair.ETHERTYPE, s.frame);
        if (s.count < s.setups.length) {
            s.setups[s.count++] = nanos;
        }
        return nanos;
    }
}
