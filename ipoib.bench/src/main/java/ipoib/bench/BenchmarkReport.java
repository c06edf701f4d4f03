package ipoib.bench;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.openjdk.jmh.infra.BenchmarkParams;
import org.openjdk.jmh.profile.GCProfiler;
import org.openjdk.jmh.results.Result;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.ChainedOptionsBuilder;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;

/**
 * Runs the benchmarks and prints the results as ratios against the baselines measured in the
 * same run (the machines are shared and noisy; absolute figures move, ratios much less).
 *
 * <p>Usage: {@code java -jar benchmarks.jar [quick|full] [regex]}. {@code quick} is a smoke run
 * (one short iteration); {@code full} is the run {@code docs/PERFORMANCE.md} reports.
 */
public final class BenchmarkReport {
    private BenchmarkReport() {}

    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "full";
        if (!mode.equals("quick") && !mode.equals("full")) {
            System.err.println("usage: java -jar benchmarks.jar [quick|full] [benchmark regex]");
            System.exit(2);
        }
        boolean quick = mode.equals("quick");
        String run = Long.toString(ProcessHandle.current().pid());
        System.setProperty("ipoib.bench.run", run);
        ChainedOptionsBuilder options = new OptionsBuilder()
                .include(args.length > 1 ? args[1] : "ipoib\\.bench\\..*")
                .forks(1)
                .jvmArgsAppend("--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow",
                        "-Xms1g", "-Xmx1g", "-Dipoib.bench.run=" + run,
                        // Receive loops on platform threads, which the pinning can hold on their CPU
                        // (a virtual one moves between carriers); -Dipoib.threads.virtual=true measures them virtual.
                        "-Dipoib.threads.virtual=" + System.getProperty("ipoib.threads.virtual", "false"))
                .warmupIterations(quick ? 1 : 3)
                .warmupTime(TimeValue.milliseconds(quick ? 200 : 2000))
                .measurementIterations(quick ? 1 : 5)
                .measurementTime(TimeValue.milliseconds(quick ? 200 : 2000))
                .addProfiler(GCProfiler.class)
                .shouldFailOnError(true);
        Collection<RunResult> results = new Runner(options.build()).run();
        System.out.println();
        System.out.println(table(results));
    }

    /** Where the forked trials leave figures that are not JMH scores (e.g. heap per entry), one file per run. */
    static java.nio.file.Path notesFile() {
        return java.nio.file.Path.of(System.getProperty("java.io.tmpdir"),
                "ipoib-bench-notes-" + System.getProperty("ipoib.bench.run", "0") + ".txt");
    }

    /** Called in a trial (the forked JVM): records {@code label: value} for the table. */
    static synchronized void note(String label, String value) {
        try {
            java.nio.file.Files.writeString(notesFile(), label + "\t" + value + "\n", java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            System.err.println("cannot record " + label + ": " + e);
        }
    }

    static List<String[]> notes() {
        // Several benchmarks may share a trial setup that notes the same figure: the last one stands.
        Map<String, String[]> out = new LinkedHashMap<>();
        java.nio.file.Path NOTES = notesFile();
        try {
            if (java.nio.file.Files.exists(NOTES)) {
                for (String line : java.nio.file.Files.readAllLines(NOTES)) {
                    String[] kv = line.split("\t", 2);
                    if (kv.length == 2) {
                        out.put(kv[0], new String[] {kv[0], kv[1], "-", "-", "-", "-"});
                    }
                }
                java.nio.file.Files.delete(NOTES);
            }
        } catch (java.io.IOException e) {
            System.err.println("cannot read " + NOTES + ": " + e);
        }
        return new ArrayList<>(out.values());
    }

    /** Score and allocation of one benchmark (by method and parameter). */
    record Figure(double score, double error, String unit, double bytesPerOp, double p50, double p90, double p99,
                  double best) {}

    static Map<String, Figure> figures(Collection<RunResult> results) {
        Map<String, Figure> out = new LinkedHashMap<>();
        for (RunResult r : results) {
            BenchmarkParams p = r.getParams();
            String name = p.getBenchmark().substring(p.getBenchmark().lastIndexOf('.', p.getBenchmark().lastIndexOf('.') - 1) + 1);
            String param = p.getParamsKeys().isEmpty() ? "" : "[" + p.getParam(p.getParamsKeys().iterator().next()) + "]";
            Result<?> primary = r.getPrimaryResult();
            Result<?> alloc = r.getSecondaryResults().get("gc.alloc.rate.norm");
            if (alloc == null) {
                alloc = r.getSecondaryResults().get("·gc.alloc.rate.norm");
            }
            // Percentiles: meaningful for the sampled benchmarks (Mode.SampleTime).
            org.openjdk.jmh.util.Statistics st = primary.getStatistics();
            boolean sampled = p.getMode() == org.openjdk.jmh.annotations.Mode.SampleTime;
            // The best measurement iteration: on a shared machine the one least disturbed by other jobs.
            double best = Double.NaN;
            for (org.openjdk.jmh.results.BenchmarkResult b : r.getBenchmarkResults()) {
                for (org.openjdk.jmh.results.IterationResult i : b.getIterationResults()) {
                    double score = i.getPrimaryResult().getScore();
                    best = best == best ? Math.max(best, score) : score;
                }
            }
            out.put(name + param, new Figure(primary.getScore(), primary.getScoreError(), primary.getScoreUnit(),
                    alloc == null ? Double.NaN : alloc.getScore(),
                    sampled ? st.getPercentile(50) : Double.NaN, sampled ? st.getPercentile(90) : Double.NaN,
                    sampled ? st.getPercentile(99) : Double.NaN, best));
        }
        return out;
    }

    static String table(Collection<RunResult> results) {
        Map<String, Figure> f = figures(results);
        List<String[]> rows = new ArrayList<>();
        rows.add(new String[] {"measure", "stack", "baseline", "stack / baseline", "target", "B/op (stack)",
                "best iterations: stack / baseline"});
        String ring64 = "PacketPathBenchmark.ringBaseline[64]";
        String ring2044 = "PacketPathBenchmark.ringBaseline[2044]";
        ratio(rows, f, "link packet rate, 64 B (packets/s)", "PacketPathBenchmark.stack[64]", ring64, ">= 0.30");
        ratio(rows, f, "link packet rate, 64 B, bursts of 16 (packets/s)", "PacketPathBenchmark.stackBurst[64]",
                ring64, ">= 0.30");
        ratio(rows, f, "link bandwidth, 2044 B (packets/s)", "PacketPathBenchmark.stack[2044]", ring2044, ">= 0.60");
        ratio(rows, f, "link bandwidth, 2044 B, bursts of 16 (packets/s)", "PacketPathBenchmark.stackBurst[2044]",
                ring2044, ">= 0.60");
        ratio(rows, f, "UDP packet rate, 64 B payload, host layer (datagrams/s)", "HostPathBenchmark.udp[64]", ring64,
                ">= 0.25");
        ratio(rows, f, "UDP packet rate, 64 B payload, bursts of 16, host layer (datagrams/s)",
                "HostPathBenchmark.udpBurst[64]", ring64, ">= 0.25");
        ratio(rows, f, "UDP bandwidth, 2016 B payload = 2044 B frame, host layer (datagrams/s)",
                "HostPathBenchmark.udp[2016]", ring2044, "-");
        ratio(rows, f, "UDP bandwidth, 2016 B payload, bursts of 16, host layer (datagrams/s)",
                "HostPathBenchmark.udpBurst[2016]", ring2044, "-");
        single(rows, f, "host layer alone, 64 B UDP payload, send side, one thread", "HostLayerBenchmark.send",
                "-");
        single(rows, f, "host layer alone, 64 B UDP payload, receive side, one thread", "HostLayerBenchmark.receive",
                "-");
        single(rows, f, "host layer alone, 64 B UDP payload, both sides, one thread",
                "HostLayerBenchmark.sendAndReceive", "-");
        for (int n : new int[] {1, 2, 4, 16}) {
            ratio(rows, f, "packet rate, 64 B, " + n + (n == 1 ? " interface" : " interfaces") + " sending at once, all "
                    + "threads (packets/s; baseline: 1 interface)", "InterfacesBenchmark.interfaces" + n,
                    "InterfacesBenchmark.interfaces1", "not falling");
        }
        // What bounds the single-frame rows: the same handoff with k uncontended locks per packet.
        for (String k : new String[] {"1", "2", "3"}) {
            ratio(rows, f, "SPSC handoff, 64 B, " + k + (k.equals("1") ? " lock" : " locks")
                    + " taken per packet by the producer (packets/s; baseline: none)", "LockedHandoffBenchmark.handoff[" + k + "]",
                    "LockedHandoffBenchmark.handoff[0]", "-");
        }
        for (String n : new String[] {"10", "1000", "100000"}) {
            ratio(rows, f, "packet rate, 64 B, " + n + " neighbours in use at once (packets/s)",
                    "NeighboursInUseBenchmark.send[" + n + "]", ring64, "flat");
        }
        // The loopback fabric's forwarding: three switches (leaf, spine, leaf) against one, same run.
        ratio(rows, f, "loopback fabric, 64 B datagrams through 3 switches vs 1 (datagrams/s; baseline: 1 switch)",
                "FabricHopsBenchmark.sendThroughSwitches[3]", "FabricHopsBenchmark.sendThroughSwitches[1]", ">= 0.9");
        // The fabric's cost per packet against its size: 256 and 1 024 HCAs against 2, same hops.
        for (String ports : new String[] {"256", "1024"}) {
            ratio(rows, f, "loopback fabric, 64 B datagrams on a subnet of " + ports + " HCAs vs 2 (datagrams/s; baseline: 2 HCAs)",
                    "FabricScaleBenchmark.sendOnALargeSubnet[" + ports + "]", "FabricScaleBenchmark.sendOnALargeSubnet[2]",
                    ">= 0.9");
        }
        // Connected mode: octets per second of 65 520-octet frames over RC against 2 044-octet
        // frames over UD, both measured in this run.
        Figure rc = f.get("ConnectedModeBenchmark.rc65520");
        Figure ud = f.get("PacketPathBenchmark.stack[2044]");
        if (rc != null && ud != null) {
            rows.add(new String[] {"bandwidth, connected mode 65 520 B frames vs datagram mode 2 044 B (MB/s)",
                    String.format(Locale.ROOT, "%.0f", rc.score() * 65520 / 1e6),
                    String.format(Locale.ROOT, "%.0f", ud.score() * 2044 / 1e6),
                    String.format(Locale.ROOT, "%.2f", rc.score() * 65520 / (ud.score() * 2044)), "> 1",
                    String.format(Locale.ROOT, "%.1f", rc.bytesPerOp())});
        }
        Figure setup = f.get("ConnectedModeBenchmark.connect");
        if (setup != null && setup.p50() == setup.p50()) {
            rows.add(new String[] {"connection tear-down and set-up with its first frame (" + setup.unit() + ")",
                    String.format(Locale.ROOT, "p50 %.0f, p90 %.0f, p99 %.0f", setup.p50(), setup.p90(), setup.p99()),
                    "-", "-", "-", String.format(Locale.ROOT, "%.0f", setup.bytesPerOp())});
        }
        Figure cold = f.get("ResolutionBenchmark.coldIpv4");
        if (cold != null && cold.p50() == cold.p50()) {
            rows.add(new String[] {"cold IPv4 resolution, ARP + PathRecord (" + cold.unit() + ")",
                    String.format(Locale.ROOT, "p50 %.0f, p90 %.0f, p99 %.0f", cold.p50(), cold.p90(), cold.p99()),
                    "-", "-", "-", String.format(Locale.ROOT, "%.0f", cold.bytesPerOp())});
        }
        for (Map.Entry<String, Figure> e : f.entrySet()) {
            if (e.getKey().startsWith("CodecBenchmark.")) {
                Figure x = e.getValue();
                rows.add(new String[] {e.getKey().substring("CodecBenchmark.".length()) + " (" + x.unit() + ")",
                        String.format(Locale.ROOT, "%.1f ± %.1f", x.score(), x.error()), "-", "-", "-",
                        String.format(Locale.ROOT, "%.0f", x.bytesPerOp())});
            }
        }
        for (Map.Entry<String, Figure> e : f.entrySet()) {
            if (e.getKey().startsWith("NeighbourBenchmark.")) {
                Figure x = e.getValue();
                rows.add(new String[] {"neighbour " + (e.getKey().contains("lookupHot") ? "lookup (1 024 hot entries)" : "lookup (random)") + ", 4 threads, " + e.getKey().substring(e.getKey().indexOf('[') + 1,
                        e.getKey().length() - 1) + " entries (" + x.unit() + ")",
                        String.format(Locale.ROOT, "%.3g ± %.2g", x.score(), x.error()), "-", "-",
                        "flat in table size", String.format(Locale.ROOT, "%.1f", x.bytesPerOp())});
            }
        }
        single(rows, f, "join 1 000 multicast groups (listener joins, loopback SA)", "MulticastBenchmark.join1000", "-");
        single(rows, f, "egress decision, member group", "MulticastBenchmark.egressMember", "allocation-free");
        rows.addAll(notes());
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < rows.size(); i++) {
            String[] row = java.util.Arrays.copyOf(rows.get(i), 7);
            for (int c = 0; c < row.length; c++) {
                row[c] = row[c] == null ? "-" : row[c];
            }
            out.append("| ").append(String.join(" | ", row)).append(" |\n");
            if (i == 0) {
                out.append("|---|---|---|---|---|---|---|\n");
            }
        }
        return out.toString();
    }

    /** A row without a baseline. */
    private static void single(List<String[]> rows, Map<String, Figure> f, String label, String key, String target) {
        Figure x = f.get(key);
        if (x == null) {
            return;
        }
        rows.add(new String[] {label + " (" + x.unit() + ")", String.format(Locale.ROOT, "%.3g ± %.2g", x.score(), x.error()),
                "-", "-", target, String.format(Locale.ROOT, "%.1f", x.bytesPerOp())});
    }

    private static void ratio(List<String[]> rows, Map<String, Figure> f, String label, String stack, String baseline,
                              String target) {
        Figure s = f.get(stack);
        Figure b = f.get(baseline);
        if (s == null || b == null) {
            return;
        }
        rows.add(new String[] {label, String.format(Locale.ROOT, "%.3g ± %.2g", s.score(), s.error()),
                String.format(Locale.ROOT, "%.3g ± %.2g", b.score(), b.error()),
                String.format(Locale.ROOT, "%.2f", s.score() / b.score()), target,
                String.format(Locale.ROOT, "%.1f", s.bytesPerOp()),
                String.format(Locale.ROOT, "%.3g / %.3g = %.2f", s.best(), b.best(), s.best() / b.best())});
    }
}
