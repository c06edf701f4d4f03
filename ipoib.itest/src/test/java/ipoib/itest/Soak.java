package ipoib.itest;

import static org.junit.Assert.assertTrue;
import static org.ops4j.pax.exam.CoreOptions.options;
import static org.ops4j.pax.exam.CoreOptions.systemProperty;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerClass;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogListener;
import org.osgi.service.log.LogReaderService;

/**
 * The soak run ({@code ./ipoib soak [minutes]}; not part of the test suite: its name does not
 * end in IT): the appliance's bundles in Felix with three interfaces under mixed traffic
 * ({@link SoakTraffic}) while {@link SoakEvent}s drawn from a seed are injected through the Gogo
 * commands a user has. After each event it measures the heal time: from the end of the event
 * (fault cleared, port up, command done) until a round of every flow arrives complete.
 *
 * <p>System properties: {@code soak.minutes} (default 30), {@code soak.seed} (default the time),
 * {@code soak.report} (a file for the report), {@code soak.events} (comma-separated
 * {@link SoakEvent} names to inject, default all). The run fails when an event did not heal within
 * {@link #HEAL_LIMIT}, an exception was logged, or heap or threads grew more than 10 %.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerClass.class)
public class Soak {
    static final Duration HEAL_LIMIT = Duration.ofSeconds(120);
    private static final int INTERFACES = 3;

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;
    @Inject
    LogReaderService logReader;

    private final AtomicLong exceptions = new AtomicLong();
    private final AtomicLong errors = new AtomicLong();
    private final AtomicLong warnings = new AtomicLong();
    private final ConcurrentLinkedQueue<String> exceptionLines = new ConcurrentLinkedQueue<>();
    private final ConcurrentLinkedQueue<String> errorLines = new ConcurrentLinkedQueue<>();
    private final LogListener logListener = this::logged;
    /** Some classes (the SA client, the loopback fabric) log through java.util.logging: counted too. */
    private final java.util.logging.Handler julHandler = new java.util.logging.Handler() {
        @Override
        public void publish(java.util.logging.LogRecord r) {
            if (r.getThrown() != null) {
                exceptions.incrementAndGet();
                if (exceptionLines.size() < 20) {
                    exceptionLines.add("JUL " + r.getLevel() + " " + r.getLoggerName() + ": " + r.getMessage() + " "
                            + r.getThrown());
                }
            } else if (r.getLevel().intValue() >= java.util.logging.Level.SEVERE.intValue()) {
                errors.incrementAndGet();
            } else if (r.getLevel().intValue() >= java.util.logging.Level.WARNING.intValue()) {
                warnings.incrementAndGet();
            }
        }

        @Override
        public void flush() {}

        @Override
        public void close() {}
    };
    /** Heal times by event kind; a bundle restart by bundle ("BUNDLE_RESTART ipoib.link"). */
    private final Map<String, List<Long>> healMillis = new java.util.LinkedHashMap<>();
    private final List<String> unhealed = new ArrayList<>();
    private int nextLid = 0x100;

    @Configuration
    public Option[] config() {
        return options(OsgiTestSupport.runtime("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.arp",
                        "ipoib.nd", "ipoib.host", "ipoib.mcast"),
                systemProperty("ipoib.defaults").value("false"));
    }

    @Test
    public void soak() throws Exception {
        // A failed soak is reported, not rerun (whatever the build's rerun setting).
        if (System.getProperty("soak.started") != null) {
            throw new AssertionError("the soak already ran in this JVM and failed: it is not rerun");
        }
        System.setProperty("soak.started", "true");
        long minutes = Long.getLong("soak.minutes", 30);
        long seed = Long.getLong("soak.seed", System.currentTimeMillis());
        Random random = new Random(seed);
        logReader.addLogListener(logListener);
        java.util.logging.Logger.getLogger("").addHandler(julHandler);
        List<SoakTraffic.Node> nodes = setUp();
        SoakTraffic traffic = new SoakTraffic(context, nodes, InetAddress.ofLiteral("239.1.1.1"),
                InetAddress.ofLiteral("ff15::1:1"));
        long healStart = System.nanoTime();
        if (heal(traffic, Duration.ofSeconds(60)) < 0) {
            throw new AssertionError("the soak's traffic never flowed: " + traffic.round(Duration.ofSeconds(2)));
        }
        System.out.printf("soak: seed %d, %d min, %d interfaces, traffic flows after %d ms%n", seed, minutes,
                INTERFACES, (System.nanoTime() - healStart) / 1_000_000);
        Footprint start = Footprint.measure();
        long end = System.nanoTime() + Duration.ofMinutes(minutes).toNanos();
        int events = 0;
        List<SoakEvent> kinds = kinds();
        while (System.nanoTime() < end) {
            // Every kind once in order (a complete fault matrix even in a short run), then at random.
            SoakEvent event = events < kinds.size() ? kinds.get(events) : kinds.get(random.nextInt(kinds.size()));
            String what = inject(event, random, nodes);
            // SoakTraffic while the fault holds: losses are expected and counted, not judged.
            long holdUntil = System.nanoTime() + (event.held() ? Duration.ofSeconds(2 + random.nextInt(7)).toNanos() : 0);
            while (System.nanoTime() < holdUntil) {
                traffic.round(Duration.ofMillis(300));
            }
            String ended = end(event, what);
            long healed = heal(traffic, HEAL_LIMIT);
            events++;
            if (healed < 0) {
                unhealed.add(what + " (" + ended + "): " + traffic.round(Duration.ofSeconds(2)).missing());
                System.out.printf("soak: event %d %s NOT healed within %d s%n", events, what, HEAL_LIMIT.toSeconds());
            } else {
                String kind = event == SoakEvent.BUNDLE_RESTART ? event + " " + what.substring("restart ".length())
                        : event.name();
                healMillis.computeIfAbsent(kind, e -> new ArrayList<>()).add(healed);
                System.out.printf("soak: event %d %s healed in %d ms%n", events, what, healed);
            }
            // Quiet traffic between events: every round must be complete.
            long quietUntil = System.nanoTime() + Duration.ofSeconds(1 + random.nextInt(3)).toNanos();
            while (System.nanoTime() < quietUntil) {
                traffic.round(Duration.ofSeconds(1));
            }
        }
        Footprint finish = Footprint.measure();
        traffic.close();
        logReader.removeLogListener(logListener);
        java.util.logging.Logger.getLogger("").removeHandler(julHandler);
        String report = report(seed, minutes, events, traffic, start, finish);
        System.out.println(report);
        String file = System.getProperty("soak.report");
        if (file != null && !file.isBlank()) {
            write(Path.of(file), report);
        }
        assertTrue("events not healed: " + unhealed, unhealed.isEmpty());
        assertTrue("exceptions logged: " + exceptionLines, exceptions.get() == 0);
        assertTrue("heap after GC grew more than 10 %: " + start + " -> " + finish, finish.heapWithin(start, 0.10));
        assertTrue("threads grew more than 10 %: " + start + " -> " + finish, finish.threadsWithin(start, 0.10));
    }

    /** The event kinds of property soak.events (comma-separated names), default all. */
    private static List<SoakEvent> kinds() {
        String names = System.getProperty("soak.events", "");
        if (names.isBlank()) {
            return List.of(SoakEvent.values());
        }
        List<SoakEvent> out = new ArrayList<>();
        for (String n : names.split(",")) {
            out.add(SoakEvent.valueOf(n.strip().toUpperCase(java.util.Locale.ROOT)));
        }
        return out;
    }

    /** Three HCAs, an interface on each with an IPv4 and an IPv6 address, listeners of both groups. */
    private List<SoakTraffic.Node> setUp() throws Exception {
        org.osgi.service.cm.Configuration fabric = configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?");
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("hcas", INTERFACES);
        fabric.update(props);
        until("the fabric has " + INTERFACES + " HCAs", () -> tryRun("fabric:hcas").contains("loop" + (INTERFACES - 1)));
        List<SoakTraffic.Node> nodes = new ArrayList<>();
        for (int i = 0; i < INTERFACES; i++) {
            String link = "ib" + i + "_1_ffff";
            run("ipoib:create loop" + i + " 1 0xffff " + link);
            nodes.add(new SoakTraffic.Node(link, InetAddress.ofLiteral("10.0.0." + (i + 1)),
                    InetAddress.ofLiteral("fd00::" + (i + 1))));
        }
        run("ipoib:await all 60");
        for (int i = 0; i < INTERFACES; i++) {
            SoakTraffic.Node n = nodes.get(i);
            run("ipoib:addr add " + n.link() + " 10.0.0." + (i + 1) + "/24");
            run("ipoib:addr add " + n.link() + " fd00::" + (i + 1) + "/64");
        }
        run("ipoib:addr await 60");
        for (SoakTraffic.Node n : nodes) {
            joinListeners(n.link());
        }
        return nodes;
    }

    /** The listener joins of an interface (they belong to the multicast bundle and go with it). */
    private void joinListeners(String link) {
        for (String group : new String[] {"239.1.1.1", "ff15::1:1"}) {
            String groups = tryRun("ipoib:mcast " + link);
            if (!groups.lines().anyMatch(l -> l.contains(" " + group + " ") && l.contains("LISTENER"))) {
                tryRun("ipoib:join " + link + " " + group);
            }
        }
    }

    /** Injects the event; what was done, as a user would read it. */
    private String inject(SoakEvent event, Random random, List<SoakTraffic.Node> nodes) throws Exception {
        String port = "loop" + random.nextInt(INTERFACES) + "/1";
        return switch (event) {
            case LOSS, DUPLICATE, REORDER, CORRUPT, DELAY -> {
                String cmd = String.format(event.command, event.value(random)) + (random.nextBoolean() ? " " + port : "");
                run(cmd);
                yield cmd;
            }
            case SA_DROP, SA_ERROR, SA_DELAY, TRAP_LOSS -> {
                String cmd = String.format(event.command, event.value(random));
                run(cmd);
                // Resolution must go through the faulty SA: the neighbour entries are flushed.
                run("ipoib:neigh flush");
                yield cmd + "; ipoib:neigh flush";
            }
            case PORT_RESET -> run(String.format(event.command, port)).strip();
            case PORT_DOWN_UP -> {
                run(String.format(event.command, port));
                yield "fabric:down " + port + "; fabric:up " + port;
            }
            case LID_CHANGE -> run(String.format(event.command, port, nextLid++)).strip();
            case SM_CHANGE -> run(event.command).strip();
            case BUNDLE_RESTART -> {
                String name = SoakEvent.RESTARTABLE.get(random.nextInt(SoakEvent.RESTARTABLE.size()));
                // Through the framework API (what felix:stop/start call): Gogo's coercion of a
                // bundle id to a Bundle is not available in every shell set-up.
                Bundle bundle = bundle(name);
                bundle.stop();
                bundle.start();
                yield "restart " + name;
            }
        };
    }

    /** Ends a held event (clears the faults, brings the port up); the others have ended already. */
    private String end(SoakEvent event, String what) throws Exception {
        if (event == SoakEvent.PORT_DOWN_UP) {
            return run("fabric:up " + what.substring(what.lastIndexOf(' ') + 1)).strip();
        }
        if (event.held()) {
            return run("fabric:clear").strip();
        }
        return "at once";
    }

    /** Milliseconds until a complete round (listeners joined again after a restart), or -1 past the limit. */
    private long heal(SoakTraffic traffic, Duration limit) throws InterruptedException {
        long start = System.nanoTime();
        long deadline = start + limit.toNanos();
        while (System.nanoTime() < deadline) {
            for (int i = 0; i < INTERFACES; i++) {
                joinListeners("ib" + i + "_1_ffff");
            }
            if (traffic.round(Duration.ofSeconds(1)).complete()) {
                return (System.nanoTime() - start) / 1_000_000;
            }
        }
        return -1;
    }

    private String report(long seed, long minutes, int events, SoakTraffic traffic, Footprint start, Footprint finish) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("soak report: seed %d, %d minute%s, %d interfaces, %d events%n", seed, minutes,
                minutes == 1 ? "" : "s", INTERFACES, events));
        out.append(String.format("packets: %d sent, %d deliveries expected, %d received (%.2f %%; UDP unicast and"
                + " multicast over IPv4 and IPv6, ICMP and ICMPv6 echo; losses while faults lasted included)%n",
                traffic.sent(), traffic.expected(), traffic.received(), 100.0 * traffic.received() / traffic.expected()));
        out.append(String.format("%-36s %6s %10s %10s%n", "event", "count", "heal max", "heal p99"));
        for (Map.Entry<String, List<Long>> e : new java.util.TreeMap<>(healMillis).entrySet()) {
            List<Long> times = new ArrayList<>(e.getValue());
            times.sort(null);
            long max = times.get(times.size() - 1);
            long p99 = times.get(Math.max(0, (int) Math.ceil(times.size() * 0.99) - 1));
            out.append(String.format("%-36s %6d %7d ms %7d ms%n", e.getKey(), times.size(), max, p99));
        }
        out.append(String.format("not healed within %d s: %d%s%n", HEAL_LIMIT.toSeconds(), unhealed.size(),
                unhealed.isEmpty() ? "" : " " + unhealed));
        out.append(String.format("start: %s%nend:   %s%n", start, finish));
        out.append(String.format("heap after GC %+.1f %%, threads %+d%n",
                100.0 * (finish.heap() - start.heap()) / start.heap(), finish.threads() - start.threads()));
        out.append(String.format("log: %d exceptions%s%n", exceptions.get(),
                exceptionLines.isEmpty() ? "" : "\n  " + String.join("\n  ", exceptionLines)));
        out.append(String.format("log: %d errors without an exception, %d warnings%s%n", errors.get(), warnings.get(),
                errorLines.isEmpty() ? "" : " (the first ones follow; path lookups that fail while an SA fault"
                        + " lasts are logged as errors)\n  " + String.join("\n  ", errorLines)));
        return out.toString();
    }

    private void logged(LogEntry entry) {
        String line = entry.getLogLevel() + " " + (entry.getBundle() == null ? "" : entry.getBundle().getSymbolicName())
                + ": " + entry.getMessage() + (entry.getException() == null ? "" : " " + entry.getException());
        if (entry.getException() != null) {
            exceptions.incrementAndGet();
            if (exceptionLines.size() < 20) {
                exceptionLines.add(line);
            }
        } else if (entry.getLogLevel() == LogLevel.ERROR) {
            errors.incrementAndGet();
            if (errorLines.size() < 10) {
                errorLines.add(line);
            }
        } else if (entry.getLogLevel() == LogLevel.WARN) {
            warnings.incrementAndGet();
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private String run(String command) throws Exception {
        return GogoShell.run(shell, command);
    }

    private String tryRun(String command) {
        try {
            return run(command);
        } catch (Exception e) {
            return "";
        }
    }

    private static void until(String what, java.util.function.BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(60), condition);
    }

    private static void write(Path file, String text) throws IOException {
        if (file.getParent() != null) {
            Files.createDirectories(file.getParent());
        }
        Files.writeString(file, text);
    }

    /** Heap used after a full GC and live threads. */
    record Footprint(long heap, int threads) {
        static Footprint measure() throws InterruptedException {
            long used = Long.MAX_VALUE;
            // Several collections: the smallest figure is the live set, not a collection in progress.
            for (int i = 0; i < 3; i++) {
                System.gc();
                Thread.sleep(200);
                used = Math.min(used, ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed());
            }
            return new Footprint(used, ManagementFactory.getThreadMXBean().getThreadCount());
        }

        boolean heapWithin(Footprint start, double fraction) {
            return heap <= start.heap * (1 + fraction);
        }

        boolean threadsWithin(Footprint start, double fraction) {
            return threads <= Math.ceil(start.threads * (1 + fraction));
        }

        @Override
        public String toString() {
            return String.format("heap after GC %.1f MB, %d threads", heap / 1048576.0, threads);
        }
    }
}
