package ipoib.host.internal;

import ipoib.api.host.IpHost;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import java.util.TreeMap;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** The host layer's counters for the console's {@code /metrics} ({@code ipoib_host_*}). */
@Component(service = MetricsSource.class)
public final class HostMetrics implements MetricsSource {
    private final IpHost host;

    @Activate
    public HostMetrics(@Reference IpHost host) {
        this.host = host;
    }

    @Override
    public void collect(MetricSink out) {
        new TreeMap<>(host.counters()).forEach((k, v) -> out.sample(Metric.counter(
                "ipoib_host_" + MetricNames.part(k) + "_total", "Host layer counter " + k + "."), v));
    }
}
