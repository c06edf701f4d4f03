package ipoib.bench;

import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
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
 * Cold IPv4 resolution on the loopback fabric, sampled (p50/p90/p99): both neighbour tables are
 * flushed before every resolution, which then takes an ARP request to the broadcast group, the
 * peer's path lookup of the requester and its unicast reply, and the requester's PathRecord
 * lookup at the SA (RFC 4391 §9.2).
 */
@BenchmarkMode(Mode.SampleTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class ResolutionBenchmark {

    @State(Scope.Benchmark)
    public static class Hosts {
        HostPair pair;

        @Setup(Level.Trial)
        public void start() throws Exception {
            pair = new HostPair();
        }

        /** Cold: neither side knows the other. */
        @Setup(Level.Invocation)
        public void flush() {
            pair.arpA.flush("ib0");
            pair.arpB.flush("ib1");
        }

        @TearDown(Level.Trial)
        public void stop() {
            pair.close();
        }
    }

    @Benchmark
    public PathInfo coldIpv4(Hosts hosts) throws Exception {
        PathInfoAnswer answer = hosts.pair.arpA.pathInfo("ib0", HostPair.B);
        return switch (answer) {
            case PathInfoAnswer.Ready ready -> throw new IllegalStateException("not cold: " + ready);
            case PathInfoAnswer.Pending pending -> pending.path().toCompletableFuture().get(10, TimeUnit.SECONDS);
            case PathInfoAnswer.NoSuchNode none -> throw new IllegalStateException("no such node: " + none.reason());
        };
    }
}
