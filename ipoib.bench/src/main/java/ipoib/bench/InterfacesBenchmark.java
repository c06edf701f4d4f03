package ipoib.bench;

import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

/**
 * The packet rate (64-octet frames, all threads together) with 1, 2, 4 and 16 interfaces sending
 * at once, each to its own receiving interface on its own HCA of one loopback subnet, one sending
 * thread per interface: independent ports must not be serialised by the fabric (one lock or one
 * shared counter line would make the total fall as senders are added). On a machine with fewer
 * cores than threads the total can only stay flat; it must not collapse.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class InterfacesBenchmark {
    static final int MAX = 16;

    /** Sixteen pairs of interfaces on 32 HCAs; each benchmark uses as many as it has threads. */
    @State(Scope.Benchmark)
    public static class Pairs {
        LoopbackSubnet subnet;
        final LinkPair[] pairs = new LinkPair[MAX];
        final AtomicInteger next = new AtomicInteger();
        int used;

        @Setup(Level.Trial)
        public void start(org.openjdk.jmh.infra.BenchmarkParams params) throws Exception {
            FabricConfig d = FabricConfig.defaults();
            subnet = new LoopbackSubnet(new FabricConfig(2 * MAX, 1, d.subnetPrefix(), d.nodeGuidBase(), d.mtu(),
                    d.rate(), d.partitions(), d.seed()), 200, 5);
            used = params.getThreads();
            for (int i = 0; i < used; i++) {
                pairs[i] = new LinkPair(subnet, i, false);
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            for (int i = 0; i < used; i++) {
                pairs[i].drain();
                pairs[i].close();
            }
            subnet.close();
        }
    }

    /** One sending thread's interface pair and payload. */
    @State(Scope.Thread)
    public static class Sender {
        LinkPair pair;
        final MemorySegment payload = Arena.ofAuto().allocate(64);

        @Setup(Level.Trial)
        public void pick(Pairs pairs) {
            pair = pairs.pairs[pairs.next.getAndIncrement()];
        }
    }

    @Benchmark
    @Threads(1)
    public void interfaces1(Sender s) {
        s.pair.sendOne(s.payload);
    }

    @Benchmark
    @Threads(2)
    public void interfaces2(Sender s) {
        s.pair.sendOne(s.payload);
    }

    @Benchmark
    @Threads(4)
    public void interfaces4(Sender s) {
        s.pair.sendOne(s.payload);
    }

    @Benchmark
    @Threads(16)
    public void interfaces16(Sender s) {
        s.pair.sendOne(s.payload);
    }
}
