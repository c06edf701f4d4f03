package ipoib.api.metrics;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * A bundle's metrics, registered as a service: the console calls {@link #collect} once per scrape
 * of {@code /metrics}. Several sources may write samples of one family (one per interface, say)
 * as long as they agree on its help, type and label names.
 */
@ConsumerType
public interface MetricsSource {
    /**
     * Writes this source's samples now. Runs on the scraping thread: it reads counters, it does
     * not wait. A source whose owner is going away may throw; its samples are then left out.
     */
    void collect(MetricSink sink);
}
