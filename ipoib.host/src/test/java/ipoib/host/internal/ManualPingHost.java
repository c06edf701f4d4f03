package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostRoute;
import ipoib.api.host.IpHost;
import ipoib.runtime.ManualClock;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * An {@link IpHost} on a manual clock for ping's tests: it records when each echo request was
 * sent, answers only when told to, and times requests out when the clock passes their timeout;
 * its {@link #waiter} moves the clock instead of waiting.
 */
final class ManualPingHost implements IpHost {
    final ManualClock clock = new ManualClock();
    final List<Long> sentAtNanos = new ArrayList<>();
    final List<Integer> sequences = new ArrayList<>();
    final HostRoute route;
    int routeLookups;
    private final Map<Integer, CompletableFuture<EchoReply>> pending = new TreeMap<>();
    private final Map<Integer, Long> deadlines = new TreeMap<>();
    private final Map<Integer, Long> scriptedRtt = new TreeMap<>();
    private final Map<Integer, Long> replyAt = new TreeMap<>();
    int ttl = 64;

    ManualPingHost(HostRoute route) {
        this.route = route;
    }

    @Override
    public Optional<HostRoute> route(String linkName, InetAddress destination) {
        routeLookups++;
        return Optional.of(route);
    }

    @Override
    public CompletionStage<EchoReply> echo(String linkName, InetAddress destination, int identifier, int sequence,
                                           int payloadLength, Duration timeout) {
        throw new AssertionError("ping routes once and sends on its route");
    }

    @Override
    public synchronized CompletionStage<EchoReply> echo(HostRoute r, int identifier, int sequence, int payloadLength,
                                                        Duration timeout) {
        sentAtNanos.add(clock.nanoTime());
        sequences.add(sequence);
        CompletableFuture<EchoReply> f = new CompletableFuture<>();
        pending.put(sequence, f);
        deadlines.put(sequence, clock.nanoTime() + timeout.toNanos());
        Long rtt = scriptedRtt.get(sequence);
        if (rtt != null) {
            replyAt.put(sequence, clock.nanoTime() + TimeUnit.MILLISECONDS.toNanos(rtt));
        }
        return f;
    }

    /** Request {@code sequence} will be answered {@code rttMillis} after it is sent (others time out). */
    void answer(int sequence, long rttMillis) {
        scriptedRtt.put(sequence, rttMillis);
    }

    private synchronized void advance(long nanos) {
        clock.advance(nanos, TimeUnit.NANOSECONDS);
        replyAt.entrySet().removeIf(e -> {
            if (e.getValue() - clock.nanoTime() <= 0) {
                deadlines.remove(e.getKey());
                pending.remove(e.getKey()).complete(new EchoReply(route.link(), route.nextHop(), 1, e.getKey(), 56, ttl,
                        Duration.ofMillis(scriptedRtt.get(e.getKey()))));
                return true;
            }
            return false;
        });
        deadlines.entrySet().removeIf(e -> {
            if (e.getValue() - clock.nanoTime() <= 0) {
                pending.remove(e.getKey()).completeExceptionally(new TimeoutException());
                return true;
            }
            return false;
        });
    }

    private synchronized long untilNextTimeout(long limit) {
        long best = limit;
        for (long d : deadlines.values()) {
            best = Math.min(best, d - clock.nanoTime());
        }
        for (long d : replyAt.values()) {
            best = Math.min(best, d - clock.nanoTime());
        }
        return Math.max(best, 0);
    }

    /** Instead of waiting: take what has happened, else move the clock to the deadline or the next timeout. */
    PingRun.Waiter waiter() {
        return (outcomes, nanos) -> {
            PingRun.Outcome o = outcomes.poll();
            if (o != null) {
                return o;
            }
            advance(untilNextTimeout(nanos));
            return outcomes.poll();
        };
    }

    @Override
    public Map<String, Long> counters() {
        return Map.of();
    }
}
