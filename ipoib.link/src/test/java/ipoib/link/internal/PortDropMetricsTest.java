package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.Metric;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The receiving port's no-receive-buffer drops in /metrics: once per port, however many interfaces share it. */
class PortDropMetricsTest {
    @Test
    void aPortsNoReceiveBufferDropsAreOneSeriesPerPort() {
        try (ReceiveBufferDrops fabric = new ReceiveBufferDrops(3)) {
            List<String> samples = new ArrayList<>();
            List<IpoibLink> links = List.of(fabric.linkOnTheReceivingPort("ib1_1_ffff"),
                    fabric.linkOnTheReceivingPort("ib1_1_8001"));
            LinkMetrics.collect((Metric metric, long value, String... labels) -> {
                if (metric.name().equals("ipoib_port_drops_total")) {
                    samples.add(String.join(",", labels) + "=" + value);
                }
            }, links);
            assertEquals(List.of("loop1,1,no_receive_buffer=3"), samples);
        }
    }
}
