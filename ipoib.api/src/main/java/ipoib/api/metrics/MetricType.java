package ipoib.api.metrics;

import java.util.Locale;

/** The Prometheus metric types this toolkit exposes. */
public enum MetricType {
    /** Only grows (from 0 when its owner starts); its name ends with {@code _total}. */
    COUNTER,
    /** A value now, which may go up and down. */
    GAUGE;

    /** The word of a {@code # TYPE} line: {@code counter} or {@code gauge}. */
    public String text() {
        return name().toLowerCase(Locale.ROOT);
    }
}
