package ipoib.console.internal;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventConstants;
import org.osgi.service.event.EventHandler;

/**
 * The last {@value #CAPACITY} events posted under the project's topics ({@code ipoib/*}): link
 * up/down with the reason, neighbours, groups, providers. Bounded: the oldest is overwritten and
 * counted. Every event gets a sequence number so that followers read what is new.
 */
@Component(service = {EventRing.class, EventHandler.class}, property = EventConstants.EVENT_TOPIC + "=ipoib/*")
public final class EventRing implements EventHandler {

    static final int CAPACITY = 512;

    /** One event as kept: its sequence number, time, topic and properties (as text). */
    record Entry(long sequence, Instant time, String topic, Map<String, String> properties) {
        String line() {
            StringBuilder out = new StringBuilder();
            out.append(time).append("  ").append(topic);
            properties.forEach((k, v) -> out.append("  ").append(k).append('=').append(v));
            return out.toString();
        }
    }

    private final Entry[] ring = new Entry[CAPACITY];
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition added = lock.newCondition();
    private long next;
    private long overwritten;

    @Override
    public void handleEvent(Event event) {
        Map<String, String> props = new TreeMap<>();
        for (String name : event.getPropertyNames()) {
            if (!name.equals(EventConstants.EVENT_TOPIC) && !name.startsWith("event.") && !name.startsWith("bundle")) {
                props.put(name, String.valueOf(event.getProperty(name)));
            }
        }
        add(event.getTopic(), props, Instant.now());
    }

    void add(String topic, Map<String, String> props, Instant time) {
        lock.lock();
        try {
            if (next >= CAPACITY) {
                overwritten++;
            }
            ring[(int) (next % CAPACITY)] = new Entry(next, time, topic, Map.copyOf(props));
            next++;
            added.signalAll();
        } finally {
            lock.unlock();
        }
    }

    /** The kept events with a sequence number at least {@code from}, oldest first. */
    List<Entry> since(long from) {
        lock.lock();
        try {
            long first = Math.max(from, Math.max(0, next - CAPACITY));
            List<Entry> out = new ArrayList<>((int) Math.max(0, next - first));
            for (long s = first; s < next; s++) {
                out.add(ring[(int) (s % CAPACITY)]);
            }
            return out;
        } finally {
            lock.unlock();
        }
    }

    /** The sequence number the next event will get. */
    long nextSequence() {
        lock.lock();
        try {
            return next;
        } finally {
            lock.unlock();
        }
    }

    /** Events lost because the ring was full. */
    long overwritten() {
        lock.lock();
        try {
            return overwritten;
        } finally {
            lock.unlock();
        }
    }

    /** Waits until an event with sequence number {@code from} or later exists, at most the timeout. */
    boolean awaitSince(long from, long timeout, TimeUnit unit) throws InterruptedException {
        long nanos = unit.toNanos(timeout);
        lock.lock();
        try {
            while (next <= from) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = added.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }
}
