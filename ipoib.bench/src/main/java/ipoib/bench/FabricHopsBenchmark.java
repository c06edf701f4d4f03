package ipoib.bench;

import ipoib.api.verbs.Port;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.io.IOException;
import java.io.InputStream;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
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
 * The loopback fabric's forwarding through switches: one thread posts a 64-octet UD datagram,
 * the fabric carries it hop by hop through the switches' linear forwarding tables into the
 * receiver's buffer, and the thread polls both completions and re-posts the receive. On the
 * small fat tree of {@code examples/fat-tree.net}: 1 switch (two HCAs on one leaf) or 3 (leaf,
 * spine, leaf). The ratio of the two is the cost of two more hops; the fabric's own work, no
 * link or host stack.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FabricHopsBenchmark {
    /** Switches between sender and receiver: 1 (loop0 to loop1, one leaf) or 3 (loop0 to loop3). */
    @Param({"1", "3"})
    public int switches;

    private LoopbackSubnet subnet;
    private Path topology;
    private DatagramRound round;

    @Setup(Level.Trial)
    public void start() throws IOException {
        // The example ships in the benchmarks jar, so that the bench runs from any directory.
        topology = Files.createTempFile("fat-tree", ".net");
        try (InputStream in = FabricHopsBenchmark.class.getResourceAsStream("/fat-tree.net")) {
            if (in == null) {
                throw new IllegalStateException("fat-tree.net is not in the benchmarks jar");
            }
            Files.copy(in, topology, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        }
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(1, 1, d.subnetPrefix(), d.nodeGuidBase(), d.mtu(), d.rate(),
                d.partitions(), 1, 0, topology.toString()), 200, 5);
        Port from = subnet.devices().get(0).ports().get(0);
        Port to = subnet.devices().get(switches == 1 ? 1 : 3).ports().get(0);
        round = new DatagramRound(from, to);
    }

    @Benchmark
    public int sendThroughSwitches() {
        return round.run();
    }

    @TearDown(Level.Trial)
    public void stop() throws IOException {
        subnet.close();
        Files.deleteIfExists(topology);
    }
}
