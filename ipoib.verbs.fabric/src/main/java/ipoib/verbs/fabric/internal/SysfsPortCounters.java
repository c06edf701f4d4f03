package ipoib.verbs.fabric.internal;

import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.IbPortCounter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The IB port counters of the hardware provider's ports for the console's {@code /metrics}
 * ({@code ipoib_ib_*}, as the loopback fabric writes them), read at each scrape from the files the
 * kernel keeps under {@code /sys/class/infiniband/<device>/ports/<port>/counters/} (Linux
 * {@code drivers/infiniband/core/sysfs.c}, {@code show_pma_counter}: the PMA's PortCounters, the
 * data counters in 4-octet words). A counter whose file is missing or unreadable is left out.
 */
@Component(service = MetricsSource.class)
public final class SysfsPortCounters implements MetricsSource {
    private final Path root;

    @Reference(target = "(" + VerbsProvider.NAME_PROPERTY + "=fabric)", cardinality = ReferenceCardinality.OPTIONAL,
            policy = ReferencePolicy.DYNAMIC)
    private volatile VerbsProvider provider;

    public SysfsPortCounters() {
        this(Path.of("/sys/class/infiniband"));
    }

    /** Reading under {@code root} instead of {@code /sys/class/infiniband} (a test's tree). */
    SysfsPortCounters(Path root) {
        this.root = root;
    }

    @Override
    public void collect(MetricSink sink) {
        VerbsProvider p = provider;
        if (p == null) {
            return;
        }
        List<Device> devices = new ArrayList<>(p.devices());
        devices.sort(Comparator.comparing(Device::name));
        for (Device d : devices) {
            for (Port port : d.ports()) {
                write(sink, d.name(), port.number());
            }
        }
    }

    /** The counters of one port that the kernel has. */
    void write(MetricSink sink, String device, int port) {
        Path dir = root.resolve(device).resolve("ports").resolve(Integer.toString(port)).resolve("counters");
        for (IbPortCounter c : IbPortCounter.values()) {
            long value = read(dir.resolve(c.sysfsName));
            if (value >= 0) {
                sink.sample(c.metric, value * c.sysfsScale, device, Integer.toString(port));
            }
        }
    }

    /** The file's number, or -1 when it is missing or holds none. */
    private static long read(Path file) {
        try {
            return Long.parseUnsignedLong(Files.readString(file).strip());
        } catch (IOException | NumberFormatException missing) {
            return -1;
        }
    }
}
