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
 * UDP datagrams per second from one host to another through the host layer (connected UDP
 * socket, IPv4, the ARP resolver's resolved neighbour, the link, the loopback fabric, the
 * receiving link's thread, IPv4 and UDP demultiplexing, the socket's receiver), one sending
 * thread, a bounded window so that nothing is dropped. Payloads: 64 octets (packet rate) and
 * 2016 octets (2044 − 20 − 8: the IPoIB frame is the full link MTU; bandwidth). The baselines
 * are {@link PacketPathBenchmark}'s ring and copy baselines, with the same payload sizes, in the
 * same run.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class HostPathBenchmark {

    @State(Scope.Benchmark)
    public static class Hosts {
        @Param({"64", "2016"})
        public int payloadBytes;
        HostPair pair;
        MemorySegment payload;
        final MemorySegment[] burst = new MemorySegment[BURST];

        @Setup(Level.Trial)
        public void start() throws Exception {
            payload = Arena.ofAuto().allocate(payloadBytes);
            for (int i = 0; i < payloadBytes; i++) {
                payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
            }
            java.util.Arrays.fill(burst, payload);
            pair = new HostPair();
            // Resolve the neighbour (the first datagram waits in the neighbour's queue meanwhile).
            pair.sendOne(payload);
            if (!pair.drain()) {
                throw new IllegalStateException("the first datagram was not delivered (ARP or path lookup failed)");
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            pair.drain();
            pair.close();
        }
    }

    /** Datagrams per burst in {@link #udpBurst}. */
    static final int BURST = PacketPathBenchmark.BURST;

    /** The same with bursts of 16 datagrams, each burst one post list on the link. */
    @Benchmark
    @OperationsPerInvocation(BURST)
    public void udpBurst(Hosts hosts) {
        hosts.pair.sendBurst(hosts.burst, BURST);
    }

    /** The stack: UDP and IPv4 headers, neighbour lookup, link send, delivery, IPv4/UDP receive, the socket's receiver. */
    @Benchmark
    public void udp(Hosts hosts) {
        hosts.pair.sendOne(hosts.payload);
    }
}
