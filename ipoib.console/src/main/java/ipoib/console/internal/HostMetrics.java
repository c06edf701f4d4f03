package ipoib.console.internal;

import ipoib.api.host.IpHost;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import java.util.TreeMap;

/** The host layer's counters ({@code ipoib_host_*}). */
final class HostMetrics implements MetricsSource {
    private final IpHost host;

    HostMetrics(IpHost host) {
        this.host = host;
    }

    @Override
    public void collect(MetricSink out) {
        new TreeMap<>(host.counters()).forEach((k, v) -> out.sample(Metric.counter(
                "ipoib_host_" + MetricNames.part(k) + "_total", "Host layer counter " + k + "."), v));
    }
}
