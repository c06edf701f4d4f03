package ipoib.console.internal;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import ipoib.runtime.Clock;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The metrics sources left out of a scrape, by source: each one counted (on {@code /metrics} as
 * {@value #NAME}) and logged with the source's name, at most one line per source per interval so
 * that a source failing on every scrape does not flood the log.
 */
final class SourceFailures {
    static final String NAME = "ipoib_metrics_source_failures_total";
    static final Metric METRIC = Metric.counter(NAME,
            "Scrapes that left a metrics source out because it threw or disagreed with a family already written.",
            "source");

    private final FailureHandler log;
    private final Clock clock;
    private final long interval;
    private final TimeUnit unit;
    private final Map<String, RateLimitedFailures> bySource = new ConcurrentHashMap<>();

    /**
     * @param log where the lines that pass the rate limit go
     * @param clock the clock of the interval
     */
    SourceFailures(FailureHandler log, Clock clock, long interval, TimeUnit unit) {
        this.log = log;
        this.clock = clock;
        this.interval = interval;
        this.unit = unit;
    }

    /** Source {@code source} was left out of this scrape, for {@code why}. */
    void failed(String source, String why, Throwable failure) {
        bySource.computeIfAbsent(source, s -> new RateLimitedFailures(log, clock, interval, unit))
                .failed("metrics source " + source + " left out of the scrape: " + why, failure);
    }

    /** How often each source was left out so far, by name. */
    Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        bySource.forEach((source, failures) -> out.put(source, failures.count()));
        return out;
    }

    /** Writes the counts, as a metrics source does (nothing until a source has failed). */
    void collect(MetricSink sink) {
        counts().forEach((source, n) -> sink.sample(METRIC, n, source));
    }
}
