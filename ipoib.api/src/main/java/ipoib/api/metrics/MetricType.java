package ipoib.api.metrics;

import java.util.Locale;

/** The Prometheus metric types this toolkit exposes. */
public enum MetricType {
    /** Only grows (from 0 when its owner starts); its name ends with {@code _total}. */
    COUNTER,
    /** A value now, which may go up and down. */
    GAUGE,
    /**
     * Observations counted into buckets, with their sum ({@link HistogramSample}); exposed as
     * the {@code _bucket}, {@code _sum} and {@code _count} series of its name.
     */
    HISTOGRAM;

    /** The word of a {@code # TYPE} line: {@code counter}, {@code gauge} or {@code histogram}. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
