package ipoib.link.internal;

import ipoib.runtime.Clock;
import ipoib.runtime.DurationHistogram;
import java.util.concurrent.atomic.LongAdder;

/**
 * What an interface measures over its whole life, across UP periods, for {@code /metrics}: how
 * often it went from UP to DOWN (flaps), how long its broadcast joins took and how long its path
 * queries took to answer, on the control loop's clock.
 */
public final class LinkHistory {
    /** Times the interface left UP (a port event, a restart, a configuration change). */
    public final LongAdder flaps = new LongAdder();
    /** From the broadcast join's request to the membership (the scope search and a creation included). */
    public final DurationHistogram broadcastJoins;
    /** From a PathRecord query to its answer, for the queries that found a path. */
    public final DurationHistogram pathResolutions;

    LinkHistory(Clock clock) {
        this.broadcastJoins = new DurationHistogram(clock, DurationHistogram.SA_EXCHANGE_SECONDS);
        this.pathResolutions = new DurationHistogram(clock, DurationHistogram.SA_EXCHANGE_SECONDS);
    }
}
