package ipoib.verbs.fabric.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricSink;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SysfsPortCountersTest {

    @Test
    void readsTheKernelsCounterFilesDataInFourOctetWordsAndLeavesOutWhatIsMissing(@TempDir Path root) throws Exception {
        Path counters = Files.createDirectories(root.resolve("mlx5_0/ports/1/counters"));
        // As Linux writes them (sysfs-class-infiniband ABI): port_xmit_data in units of 4 octets.
        Files.writeString(counters.resolve("port_xmit_data"), "1000\n");
        Files.writeString(counters.resolve("port_rcv_packets"), "42\n");
        Files.writeString(counters.resolve("link_downed"), "not a number\n");
        List<String> written = new ArrayList<>();
        MetricSink sink = (Metric m, long v, String... labels) -> written.add(m.name() + List.of(labels) + "=" + v);
        new SysfsPortCounters(root).write(sink, "mlx5_0", 1);
        assertEquals(List.of("ipoib_ib_port_data_transmitted_bytes_total[mlx5_0, 1]=4000",
                "ipoib_ib_port_packets_received_total[mlx5_0, 1]=42"), written);
    }
}
