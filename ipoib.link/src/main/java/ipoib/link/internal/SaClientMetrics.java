package ipoib.link.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricNames;
import ipoib.api.metrics.MetricSink;
import ipoib.api.verbs.Port;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The SA client of each port that carries an interface, whichever provider it belongs to
 * ({@code ipoib_sa_client_*}, labels {@code device} and {@code port}).
 */
final class SaClientMetrics {
    private SaClientMetrics() {}

    static void collect(MetricSink out, List<IpoibLink> links) {
        Map<String, Map<String, Long>> byPort = new TreeMap<>();
        for (IpoibLink l : links) {
            try {
                Port p = l.port();
                byPort.putIfAbsent(p.device().name() + "\u0000" + p.number(), p.subnetAdministrator().statistics());
            } catch (RuntimeException gone) {
                // The port's provider is going away: left out of this scrape.
            }
        }
        byPort.forEach((key, stats) -> {
            String[] port = key.split("\u0000");
            new TreeMap<>(stats).forEach((k, v) -> {
                String name = "ipoib_sa_client_" + MetricNames.part(k);
                Metric m = k.equals("pending") || k.equals("subscriptions")
                        ? Metric.gauge(name, "SA client: " + k + " now.", "device", "port")
                        : Metric.counter(name + "_total", "SA client counter " + k + ".", "device", "port");
                out.sample(m, v, port[0], port[1]);
            });
        });
    }
}
