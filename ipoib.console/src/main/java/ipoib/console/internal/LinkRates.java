package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.runtime.Threads;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * Packets/s and drops/s per interface over the last {@value #SECONDS} seconds, sampled once a
 * second from the links' counters: what the console's live chart draws. Each interface keeps a
 * fixed ring of samples (bounded; an interface that goes away is forgotten).
 */
@Component(service = LinkRates.class, immediate = true)
public final class LinkRates {

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
    private volatile List<IpoibLink> links;

    private final Map<String, Ring> rings = new ConcurrentHashMap<>();
    private ScheduledExecutorService sampler;

    @Activate
    void activate() {
        sampler = Executors.newSingleThreadScheduledExecutor(r -> Threads.create("ipoib-console-rates", true, r));
        sampler.scheduleAtFixedRate(this::sample, 1, 1, TimeUnit.SECONDS);
    }

    @Deactivate
    void deactivate() {
        sampler.shutdownNow();
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
