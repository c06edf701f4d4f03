package ipoib.console.internal;

import ipoib.api.config.ConfigurationVerdicts;
import ipoib.runtime.config.StoredProperties;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Component;

/**
 * The components' verdicts on the configurations they were given, kept for whoever stored one and
 * waits for its outcome ({@code ipoib:config}): the last few, numbered, so that a refusal followed
 * at once by the write-back of the configuration in force is not missed. Each PID's last refusal
 * stands, for the listings, until its component takes another configuration than the one in force
 * when it refused (the write-back of that one, or a user storing it again, does not end it), or
 * its configuration is deleted: what is kept per PID is bounded by the configurations that exist.
 */
@Component(service = {ConfigurationVerdicts.class, VerdictBoard.class, ConfigurationListener.class})
public final class VerdictBoard implements ConfigurationVerdicts, ConfigurationListener {

    private static final int KEPT = 64;

    /** A component's verdict on {@code properties} of {@code pid}; {@code why} is null when taken. */
    record Verdict(long number, String pid, Map<String, Object> properties, String why, Map<String, Object> inForce) {
        boolean refused() {
            return why != null;
        }
    }

    private final Deque<Verdict> verdicts = new ArrayDeque<>();
    /** Each PID's last taken configuration, as its component was given it. */
    private final Map<String, Map<String, Object>> taken = new HashMap<>();
    private final Map<String, StandingRefusal> standing = new HashMap<>();
    private long next;

    @Override
    public synchronized void accepted(String pid, Map<String, Object> properties) {
        Map<String, Object> copy = Map.copyOf(properties);
        add(new Verdict(next++, pid, copy, null, null));
        taken.put(pid, copy);
        StandingRefusal refusal = standing.get(pid);
        if (refusal != null && refusal.inForce() == null) {
            // Nothing was taken before the refusal: the first configuration taken after it is its write-back.
            standing.put(pid, new StandingRefusal(refusal.refusal(), copy));
        } else if (refusal != null && !StoredProperties.same(copy, refusal.inForce())) {
            standing.remove(pid);
        }
    }

    @Override
    public synchronized void refused(String pid, Map<String, Object> properties, String why, Map<String, Object> inForce) {
        Verdict verdict = new Verdict(next++, pid, Map.copyOf(properties), why, inForce == null ? null : Map.copyOf(inForce));
        add(verdict);
        standing.put(pid, new StandingRefusal(verdict, taken.get(pid)));
    }

    /** A deleted configuration's PID is forgotten (factory configurations come and go). */
    @Override
    public synchronized void configurationEvent(ConfigurationEvent event) {
        if (event.getType() == ConfigurationEvent.CM_DELETED) {
            taken.remove(event.getPid());
            standing.remove(event.getPid());
        }
    }

    /** The refusal standing for {@code pid}, or null. */
    synchronized StandingRefusal standing(String pid) {
        return standing.get(pid);
    }

    /** The refusals standing, by PID. */
    synchronized List<StandingRefusal> standing() {
        return standing.values().stream().sorted(java.util.Comparator.comparing(r -> r.refusal().pid())).toList();
    }

    private void add(Verdict verdict) {
        verdicts.addLast(verdict);
        if (verdicts.size() > KEPT) {
            verdicts.removeFirst();
        }
        notifyAll();
    }

    /** The number the next verdict will have: take it before storing, and wait for verdicts from it on. */
    synchronized long mark() {
        return next;
    }

    /**
     * The first verdict from {@code from} on for {@code pid} on a configuration holding {@code stored}
     * (the component was given the stored values over its defaults), or null when none came within
     * {@code timeout}.
     */
    synchronized Verdict await(String pid, Map<String, Object> stored, long from, Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, Object> expected = StoredProperties.of(stored);
        while (true) {
            for (Verdict v : verdicts) {
                if (v.number() >= from && v.pid().equals(pid) && StoredProperties.within(expected, v.properties())) {
                    return v;
                }
            }
            long left = deadline - System.nanoTime();
            if (left <= 0) {
                return null;
            }
            TimeUnit.NANOSECONDS.timedWait(this, left);
        }
    }
}
