package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class NetdevMetricsTest {

    @Test
    void everyCounterOfABridgeHasAFamilyWithItsOwnHelp() {
        BridgeHarness h = new BridgeHarness(true);
        for (String name : h.bridge.counters().keySet()) {
            assertTrue(NetdevMetrics.described(name), "counter " + name + " has no family in NetdevMetrics");
        }
    }

    @Test
    void dropsAreOneFamilyWithTheReasonAndErrorsAreByOperation() {
        List<String> written = new ArrayList<>();
        MetricSink sink = (Metric m, long v, String... labels) -> written.add(m.name() + List.of(labels) + "=" + v);
        NetdevMetrics.collect(sink, Map.of("tx_malformed", 2L, "tx_dropped_no_route", 3L, "read_errors", 1L,
                "tx_packets", 7L), "ib0_1_ffff", "ib0");
        assertEquals(List.of("ipoib_netdev_device_errors_total[ib0_1_ffff, ib0, read]=1",
                "ipoib_netdev_drops_total[ib0_1_ffff, ib0, tx_dropped_no_route]=3",
                "ipoib_netdev_drops_total[ib0_1_ffff, ib0, tx_malformed]=2",
                "ipoib_netdev_tx_packets_total[ib0_1_ffff, ib0]=7"), written);
    }
}
