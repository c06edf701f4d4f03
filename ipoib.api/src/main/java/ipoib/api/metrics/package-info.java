/**
 * Metrics a bundle offers for the console's {@code /metrics}: a {@link ipoib.api.metrics.MetricsSource}
 * service writes its samples, each of a {@link ipoib.api.metrics.Metric} (name, help, type and label
 * names), to the {@link ipoib.api.metrics.MetricSink} of one scrape: counters, gauges and
 * histograms ({@link ipoib.api.metrics.HistogramSample}). The console renders every
 * source in the Prometheus text exposition format, so a new metric is written in one place: its
 * source.
 */
@Export
@Version("1.0.0")
package ipoib.api.metrics;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
