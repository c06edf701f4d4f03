package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.resolve.AddressBits;
import ipoib.runtime.Clock;
import java.io.PrintStream;
import java.util.Locale;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * One run of {@code ipoib:ping}, paced like iputils ping: a request every interval whether or not
 * the earlier ones were answered, replies matched to their request by sequence number (the host
 * matches them; each request has its own timeout), and the output of iputils: a line per reply,
 * a line per error, and the statistics. Time and waiting are injected so that tests need no real time.
 */
final class PingRun {

    /** Waits for the next outcome until a deadline (the real one polls the queue). */
    @FunctionalInterface
    interface Waiter {
        Outcome poll(BlockingQueue<Outcome> outcomes, long nanos) throws InterruptedException;

        Waiter REAL = (q, nanos) -> q.poll(nanos, TimeUnit.NANOSECONDS);
    }

    /** What became of one request: a reply, or a failure (not sent, or timed out). */
    record Outcome(int sequence, EchoReply reply, Throwable failure) {}

    /** The settings of one run. */
    record Settings(String destination, String source, String link, boolean ipv6, int count, long intervalNanos,
                    int size, long timeoutNanos) {}

    /** How long after the last request the run waits at most: its timeout and a margin (the host times it out). */
    private static final long MARGIN = TimeUnit.SECONDS.toNanos(1);

    private final Settings settings;
    private final IntFunction<CompletionStage<EchoReply>> probe;
    private final Clock clock;
    private final Waiter waiter;
    private final PrintStream out;
    private int received;
    private int errors;
    private double min = Double.MAX_VALUE;
    private double max;
    private double sum;
    private double sumSquares;

    /**
     * @param probe sends the echo request of a sequence number (1, 2, ...) on the route chosen once
     */
    PingRun(Settings settings, IntFunction<CompletionStage<EchoReply>> probe, Clock clock, Waiter waiter,
            PrintStream out) {
        this.settings = settings;
        this.probe = probe;
        this.clock = clock;
        this.waiter = waiter;
        this.out = out;
    }

    private int header() {
        return (settings.ipv6() ? 40 : 20) + 8;
    }

    /**
     * Runs the pings and returns the statistics.
     *
     * @throws IllegalArgumentException when the first request is refused (e.g. it does not fit the MTU)
     * @throws IllegalStateException after printing the statistics, when no reply came
     */
    String run() throws InterruptedException {
        BlockingQueue<Outcome> outcomes = new LinkedBlockingQueue<>(settings.count());
        long start = clock.nanoTime();
        long next = start;
        int sent = 0;
        int outstanding = 0;
        long lastSent = start;
        while (sent < settings.count() || outstanding > 0) {
            long now = clock.nanoTime();
            if (sent < settings.count() && now - next >= 0) {
                int sequence = ++sent;
                lastSent = now;
                CompletionStage<EchoReply> reply = probe.apply(sequence);
                if (sequence == 1) {
                    out.printf("PING %s from %s %s: %d(%d) bytes of data.%n", settings.destination(), settings.source(),
                            settings.link(), settings.size(), header() + settings.size());
                }
                outstanding++;
                reply.whenComplete((r, f) -> outcomes.offer(new Outcome(sequence, r, f)));
                next += settings.intervalNanos();
                continue;
            }
            long wait = sent < settings.count() ? next - now : lastSent + settings.timeoutNanos() + MARGIN - now;
            if (wait <= 0) {
                break; // the host did not complete a request within its timeout: count it lost
            }
            Outcome o = waiter.poll(outcomes, wait);
            if (o != null) {
                outstanding--;
                report(o);
            }
        }
        long elapsedMillis = (clock.nanoTime() - start) / 1_000_000;
        return summary(elapsedMillis);
    }

    private void report(Outcome o) {
        if (o.reply() != null) {
            EchoReply r = o.reply();
            received++;
            double ms = r.roundTrip().toNanos() / 1e6;
            min = Math.min(min, ms);
            max = Math.max(max, ms);
            sum += ms;
            sumSquares += ms * ms;
            out.printf(Locale.ROOT, "%d bytes from %s: icmp_seq=%d %s=%d time=%.3f ms%n", r.length() + 8,
                    AddressBits.text(r.from()), o.sequence(), settings.ipv6() ? "hlim" : "ttl", r.ttl(), ms);
        } else {
            Throwable f = o.failure() instanceof CompletionException c && c.getCause() != null ? c.getCause() : o.failure();
            if (f instanceof HostException h) {
                errors++;
                out.printf("From %s icmp_seq=%d Destination Host Unreachable: %s%n", settings.source(), o.sequence(),
                        h.getMessage());
            }
            // A timeout is silent, as with the system ping.
        }
        out.flush();
    }

    private String summary(long elapsedMillis) {
        int count = settings.count();
        int loss = (int) Math.round(100.0 * (count - received) / count);
        StringBuilder s = new StringBuilder();
        s.append(String.format("%n--- %s ping statistics ---%n", settings.destination()));
        s.append(String.format("%d packets transmitted, %d received, %s%d%% packet loss, time %dms%n", count, received,
                errors > 0 ? "+" + errors + " errors, " : "", loss, elapsedMillis));
        if (received > 0) {
            double avg = sum / received;
            double mdev = Math.sqrt(Math.max(0, sumSquares / received - avg * avg));
            s.append(String.format(Locale.ROOT, "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms%n", min, avg, max, mdev));
            return s.toString().stripTrailing();
        }
        out.print(s);
        out.flush();
        throw new IllegalStateException("no reply from " + settings.destination() + ": " + count
                + " packets transmitted, 0 received, 100% packet loss");
    }
}
