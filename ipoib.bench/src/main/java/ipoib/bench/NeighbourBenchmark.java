package ipoib.bench;

import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.link.EtherType;
import ipoib.api.link.TransmitResult;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.Protocol;
import ipoib.neighbour.Route;
import ipoib.neighbour.Settings;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.Reporter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ThreadLocalRandom;
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
import org.openjdk.jmh.annotations.Threads;

/**
 * The neighbour lookup of the send path ({@link NeighbourEngine#send} for a resolved neighbour,
 * on a link whose send does nothing), 4 threads, random neighbours out of tables of 1 000,
 * 100 000 and 1 000 000 entries: the cost must not grow with the table (beyond cache misses).
 * The setup also measures the heap per entry (used heap after a GC before and after filling the
 * table, divided by its size) and prints it; {@link BenchmarkReport} reads it from the trial's
 * output file.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class NeighbourBenchmark {

    static final int BASE_IP = 0x0A000000;
    static final int HOT = 1024;

    @State(Scope.Benchmark)
    public static class Table {
        @Param({"1000", "100000", "1000000"})
        public int entries;
        NeighbourEngine engine;
        NullLink link;
        final MemorySegment frame = Arena.ofAuto().allocate(64);
        /** 1 024 addresses spread evenly over the table: a working set that stays in cache whatever the table's size. */
        final int[] hot = new int[HOT];

        @Setup(Level.Trial)
        public void fill() {
            link = new NullLink("ib0", 0x0002_c903_0000_0101L);
            Gid peerGid = new Gid(Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0201L);
            engine = quietEngine(entries);
            engine.linkUp(link);
            long before = usedHeap();
            for (int i = 0; i < entries; i++) {
                // Distinct peers (the QPN differs), one shared path: the entry and its route are what is measured.
                LinkAddress peer = LinkAddress.of(Qpn.of(0x100 + (i & 0xFFFFF)), peerGid);
                engine.learn(link, 0, BASE_IP + i, peer, true, true);
            }
            long after = usedHeap();
            for (int i = 0; i < HOT; i++) {
                hot[i] = BASE_IP + (int) ((long) i * entries / HOT);
            }
            if (engine.send(link, 0, BASE_IP + entries - 1, EtherType.IPV4, frame) != TransmitResult.SENT) {
                throw new IllegalStateException("the table is not resolved");
            }
            double perEntry = (after - before) / (double) entries;
            System.out.printf("%nheap per neighbour entry [%d]: %.1f B%n", entries, perEntry);
            BenchmarkReport.note("neighbour heap per entry [" + entries + "] (B)", String.format(java.util.Locale.ROOT, "%.1f", perEntry));
        }

        @TearDown(Level.Trial)
        public void close() {
            engine.close();
        }

        static long usedHeap() {
            MemoryMXBean memory = ManagementFactory.getMemoryMXBean();
            for (int i = 0; i < 3; i++) {
                System.gc();
            }
            return memory.getHeapMemoryUsage().getUsed();
        }
    }

    /**
     * A neighbour engine for {@code entries} resolved neighbours that never expire, solicits
     * nothing and reports nothing, its path answers run on the answering thread.
     */
    static NeighbourEngine quietEngine(int entries) {
        Settings s = Settings.DEFAULTS;
        Settings settings = new Settings(s.retransmitMillis(), s.maxSolicitations(), s.unicastProbes(),
                s.queueLength(), entries + 16, 86_400_000L, 86_400_000L, s.failedHoldMillis(),
                s.pathTimeoutMillis(), false);
        Protocol protocol = new Protocol() {
            @Override public String solicit(ipoib.api.link.IpoibLink l, long high, long low, Route unicast) { return null; }
            @Override public String cannotResolve(ipoib.api.link.IpoibLink l, long high, long low) { return null; }
        };
        return new NeighbourEngine(false, protocol, settings, Reporter.SILENT, new InterfaceCounters(new Counters()),
                Runnable::run, System::nanoTime);
    }

    /** Random neighbours out of the whole table: at 1 000 000 entries (~250 MB) mostly cache misses. */
    @Benchmark
    @Threads(4)
    public TransmitResult lookup(Table table) {
        int i = ThreadLocalRandom.current().nextInt(table.entries);
        return table.engine.send(table.link, 0, BASE_IP + i, EtherType.IPV4, table.frame);
    }

    /** The same lookup over a fixed working set of 1 024 entries spread over the table: the algorithmic cost alone. */
    @Benchmark
    @Threads(4)
    public TransmitResult lookupHot(Table table) {
        int ip = table.hot[ThreadLocalRandom.current().nextInt(HOT)];
        return table.engine.send(table.link, 0, ip, EtherType.IPV4, table.frame);
    }
}
