package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.runtime.Clock;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * Packets/s and drops/s per interface over the last {@value #SECONDS} seconds, sampled once a
 * second from the links' counters: what the console's live chart draws. Each interface keeps a
 * fixed ring of samples (bounded; an interface that goes away is forgotten). The sampler is a
 * timer of its own {@link ControlLoop}, on that loop's clock; a sample that fails is counted
 * ({@value #FAILURES} on {@code /metrics}) and logged at most once a minute.
 */
@Component(service = {LinkRates.class, MetricsSource.class}, immediate = true)
public final class LinkRates implements MetricsSource {

    static final String FAILURES = "ipoib_console_rate_sample_failures_total";
    private static final Metric FAILURES_METRIC = Metric.counter(FAILURES,
            "Samples of the console's live rates that failed (each logged, at most one a minute).");

    static final int SECONDS = 300;

    /** Per-second rates of one interface, oldest first. */
    record Series(String link, long[] rxPackets, long[] txPackets, long[] drops) {}

    private static final class Ring {
        final long[] rx = new long[SECONDS];
        final long[] tx = new long[SECONDS];
        final long[] drops = new long[SECONDS];
        int count;
        int next;
        LinkCounters last;
        long lastDrops;

        void add(long r, long t, long d) {
            rx[next] = r;
            tx[next] = t;
            drops[next] = d;
            next = (next + 1) % SECONDS;
            count = Math.min(SECONDS, count + 1);
        }

        long[] ordered(long[] values) {
            long[] out = new long[count];
            int start = (next - count + SECONDS) % SECONDS;
            for (int i = 0; i < count; i++) {
                out[i] = values[(start + i) % SECONDS];
            }
            return out;
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    volatile List<IpoibLink> links = List.of();

    @Reference(service = LoggerFactory.class)
    private Logger log;

    private final Map<String, Ring> rings = new ConcurrentHashMap<>();
    private final RateLimitedFailures failures;
    private ControlLoop loop;

    public LinkRates() {
        this.failures = new RateLimitedFailures((message, failure) -> log.warn(message + ": " + failure),
                Clock.SYSTEM, 60, TimeUnit.SECONDS);
    }

    /** With the log of a test, limited on {@code clock}. */
    LinkRates(FailureHandler log, Clock clock) {
        this.failures = new RateLimitedFailures(log, clock, 60, TimeUnit.SECONDS);
    }

    /** Where the sampler's loop reports a sample that failed: counted, and logged at most once a minute. */
    FailureHandler failures() {
        return failures;
    }

    @Activate
    void activate() {
        start(new ThreadControlLoop("ipoib-console-rates", failures));
    }

    /** Samples once a second of {@code sampler}'s clock from now on, until {@link #deactivate}. */
    void start(ControlLoop sampler) {
        this.loop = sampler;
        sampler.schedule(this::tick, 1, TimeUnit.SECONDS);
    }

    @Deactivate
    void deactivate() {
        loop.close();
    }

    /** One sample, then the next one a second later (also when this one failed). */
    private void tick() {
        try {
            sample();
        } finally {
            loop.schedule(this::tick, 1, TimeUnit.SECONDS);
        }
    }

    @Override
    public void collect(MetricSink sink) {
        sink.sample(FAILURES_METRIC, failures.count());
    }

    static long drops(IpoibLink link, LinkCounters c) {
        return c.rxDroppedNoHandler() + c.rxDroppedMalformed() + c.txDropped();
    }

    synchronized void sample() {
        List<IpoibLink> current = links;
        List<String> names = new ArrayList<>();
        for (IpoibLink link : current) {
            try {
                String name = link.name();
                names.add(name);
                LinkCounters c = link.counters();
                long d = drops(link, c);
                Ring ring = rings.computeIfAbsent(name, n -> new Ring());
                if (ring.last != null) {
                    ring.add(Math.max(0, c.rxPackets() - ring.last.rxPackets()),
                            Math.max(0, c.txPackets() - ring.last.txPackets()), Math.max(0, d - ring.lastDrops));
                }
                ring.last = c;
                ring.lastDrops = d;
            } catch (RuntimeException goneMeanwhile) {
                // The link's bundle stopped while we sampled: it is forgotten below.
            }
        }
        rings.keySet().retainAll(names);
    }

    synchronized Map<String, Series> series() {
        Map<String, Series> out = new TreeMap<>();
        rings.forEach((name, r) -> out.put(name, new Series(name, r.ordered(r.rx), r.ordered(r.tx), r.ordered(r.drops))));
        return out;
    }

    /** The series as JSON: {"interval":1,"links":{"ib0":{"rx":[..],"tx":[..],"drops":[..]}}}. */
    String json() {
        StringBuilder out = new StringBuilder("{\"interval\":1,\"links\":{");
        boolean first = true;
        for (Series s : series().values()) {
            if (!first) {
                out.append(',');
            }
            first = false;
            out.append('"').append(jsonEscape(s.link())).append("\":{\"rx\":").append(array(s.rxPackets()))
                    .append(",\"tx\":").append(array(s.txPackets())).append(",\"drops\":").append(array(s.drops()))
                    .append('}');
        }
        return out.append("}}").toString();
    }

    private static String array(long[] values) {
        StringBuilder out = new StringBuilder("[");
        for (int i = 0; i < values.length; i++) {
            if (i > 0) {
                out.append(',');
            }
            out.append(values[i]);
        }
        return out.append(']').toString();
    }

    static String jsonEscape(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
