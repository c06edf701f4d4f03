package ipoib.bench;

import ipoib.api.LinkAddress;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.neighbour.NeighbourEngine;
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
 * The packet rate (64-octet frames) through the neighbour table and the link with 10, 1 000 and
 * 100 000 neighbours in use at once: each frame goes to the next neighbour in turn (its look-up,
 * its route, the link send, delivery, dispatch), so that the working set is the whole table. The
 * neighbours are distinct IPv4 addresses whose link addresses all lead to the receiving interface
 * (one path, as many hosts behind one port would share).
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
public class NeighboursInUseBenchmark {
    static final int BASE_IP = 0x0A000000;

    @State(Scope.Benchmark)
    public static class Table {
        @Param({"10", "1000", "100000"})
        public int neighbours;
        LinkPair pair;
        NeighbourEngine engine;
        IpoibLink link;
        final MemorySegment frame = Arena.ofAuto().allocate(64);
        int next;

        @Setup(Level.Trial)
        public void fill() throws Exception {
            pair = new LinkPair();
            link = pair.sender;
            engine = NeighbourBenchmark.quietEngine(neighbours);
            engine.linkUp(link);
            LinkAddress peer = LinkAddress.of(pair.receiverQpn, pair.receiver.gid());
            for (int i = 0; i < neighbours; i++) {
                engine.learn(link, 0, BASE_IP + i, peer, true, true);
            }
            // Resolved once the one path is: each learned entry's queue is empty until then.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            for (int i = 0; i < neighbours; i++) {
                while (engine.send(link, 0, BASE_IP + i, LinkPair.ETHERTYPE, frame) != TransmitResult.SENT) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("neighbour " + i + " of " + neighbours + " did not resolve");
                    }
                    Thread.onSpinWait();
                }
                pair.sent(1);
                pair.awaitWindow(1);
            }
        }

        @TearDown(Level.Trial)
        public void close() {
            pair.drain();
            engine.close();
            pair.close();
        }
    }

    /** One frame to the next neighbour in turn. */
    @Benchmark
    public void send(Table t) {
        t.pair.awaitWindow(1);
        int i = t.next;
        t.next = i + 1 == t.neighbours ? 0 : i + 1;
        while (t.engine.send(t.link, 0, BASE_IP + i, LinkPair.ETHERTYPE, t.frame) != TransmitResult.SENT) {
            Thread.onSpinWait();
        }
        t.pair.sent(1);
    }
}
