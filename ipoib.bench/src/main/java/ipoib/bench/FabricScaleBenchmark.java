package ipoib.bench;

import ipoib.api.verbs.Port;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
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
 * The loopback fabric's cost per packet against its size: one thread posts a 64-octet UD datagram
 * from loop0 to loop1, the fabric carries it through one switch into the receiver's buffer, and
 * the thread polls both completions and re-posts the receive, on the default subnet of 2, 256 and
 * 1 024 HCAs (above 254 ports the HCAs hang off leaf switches of 128; loop0 and loop1 share one).
 * The same hops at every size: a packet costs the same when the look-ups on its way (forwarding
 * table, destination port, queue pair) do not grow with the subnet.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FabricScaleBenchmark {
    /** HCAs (one port each) on the subnet. */
    @Param({"2", "256", "1024"})
    public int ports;

    private LoopbackSubnet subnet;
    private DatagramRound round;

    @Setup(Level.Trial)
    public void start() {
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(ports, 1, d.subnetPrefix(), d.nodeGuidBase(), d.mtu(), d.rate(),
                d.partitions(), 1, 0, ""), 200, 5);
        Port from = subnet.devices().get(0).ports().get(0);
        Port to = subnet.devices().get(1).ports().get(0);
        round = new DatagramRound(from, to);
    }

    @Benchmark
    public int sendOnALargeSubnet() {
        int n = round.run();
        if (n == 0) {
            throw new IllegalStateException("the datagram did not arrive (ports " + ports + ")");
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void stop() {
        subnet.close();
    }
}
