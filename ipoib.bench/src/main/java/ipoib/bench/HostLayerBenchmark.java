package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
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
 * The host layer's own work per 64-octet UDP datagram, on one thread, without the link and its
 * two threads ({@link HostLayer}: a connected socket, IPv4, ARP's resolved neighbour, a link
 * whose send copies the frame and hands it to the other host's IPv4 handler, UDP
 * demultiplexing, the socket's receiver copying the payload out). What {@link HostPathBenchmark}
 * adds to {@link PacketPathBenchmark} per datagram, measured without the scheduling noise of
 * two threads on a shared machine.
 */
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class HostLayerBenchmark {

    /** Host A sends; the frame stops at the link (copied into a buffer). */
    @State(Scope.Benchmark)
    public static class Sending {
        HostLayer layer;
        final MemorySegment payload = Arena.ofAuto().allocate(64);

        @Setup(Level.Trial)
        public void start() throws Exception {
            layer = new HostLayer();
            wire();
        }

        void wire() {
        }

        @TearDown(Level.Trial)
        public void stop() {
            layer.close();
        }
    }

    /** Host B receives the same frame again and again. */
    @State(Scope.Benchmark)
    public static class Receiving extends Sending {
        @Override
        void wire() {
            layer.primeReceiver(payload);
        }
    }

    /** Host A's frames go to host B's handler on the sending thread. */
    @State(Scope.Benchmark)
    public static class Both extends Sending {
        @Override
        void wire() {
            layer.connectReceiver();
        }
    }

    /** Send side: connected socket, UDP/IPv4 headers and checksum, neighbour, link (a copy). */
    @Benchmark
    public void send(Sending host) {
        host.layer.sender.send(host.payload);
    }

    /** Receive side: the IPv4 handler, checks and checksums, UDP demultiplexing, the socket's receiver. */
    @Benchmark
    public void receive(Receiving host) {
        host.layer.receiveAgain(28 + 64);
    }

    /** Both, in one call: a datagram from one host's socket to the other's receiver. */
    @Benchmark
    public void sendAndReceive(Both host) {
        host.layer.sender.send(host.payload);
    }
}
