package ipoib.verbs.fabric.internal;

import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.runtime.Clock;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import ipoib.sa.SaClient;
import ipoib.verbs.fabric.ffi.Ibv;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Umad;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * The provider's core, without OSGi: loads libibverbs, discovers and opens the devices that
 * match the filter, and says why there are none. Never throws on start: every failure becomes
 * the {@link #status()} reason.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class FabricRuntime implements AutoCloseable {

    /**
     * Validated settings (see ProviderConfig).
     *
     * @param verbsLibrary libibverbs to load
     * @param umadLibrary libibumad to load
     * @param deviceFilter devices to open, by name
     * @param saTimeoutMillis SA client wait per attempt
     * @param saAttempts SA client sends per request
     * @param smKey the SM_Key of SA requests
     */
    public record Settings(String verbsLibrary, String umadLibrary, Pattern deviceFilter, long saTimeoutMillis,
                           int saAttempts, long smKey) {
        public static Settings defaults() {
            return new Settings("libibverbs.so.1", "libibumad.so.3", Pattern.compile(".*"), 1000, 3, 1);
        }
    }

    private final Settings settings;
    private final FabricLog log;
    private final Ibv ibv;
    private final Object lazyLock = new Object();
    private final List<SaClient> clients = new CopyOnWriteArrayList<>();
    private List<Device> devices = List.of();
    private ProviderStatus status;
    private Umad.Binding umad;
    /** The SA clients' timers (retransmissions, timeouts, RMPP stalls), made with the first client. */
    private ThreadControlLoop saClientLoop;
    private final RateLimitedFailures saClientFailures;
    private volatile boolean closed;

    private FabricRuntime(Settings settings, FabricLog log, Ibv ibv) {
        this.settings = settings;
        this.log = log;
        this.ibv = ibv;
        this.saClientFailures = new RateLimitedFailures(log::warn, Clock.SYSTEM, 10, TimeUnit.SECONDS);
    }

    /**
     * Starts the provider: never throws; an unusable provider says why in its status, which is
     * logged once here.
     */
    public static FabricRuntime start(Settings settings, FabricLog log) {
        Ibv.Binding binding = Ibv.load(settings.verbsLibrary());
        FabricRuntime runtime = new FabricRuntime(settings, log, binding.ibv());
        if (binding.ibv() == null) {
            runtime.status = ProviderStatus.unavailable("libibverbs not available: " + binding.failure());
            log.warn("fabric provider unavailable: " + runtime.status.reason(), null);
            return runtime;
        }
        List<Device> opened = new ArrayList<>();
        String problem;
        try {
            problem = runtime.discover(opened);
        } catch (Throwable t) {
            problem = "device discovery failed: " + t;
        }
        if (opened.isEmpty()) {
            runtime.status = ProviderStatus.unavailable(problem);
            if (problem.startsWith("no RDMA devices")) {
                // The normal case on a machine without HCAs: say so once, without alarm.
                log.info("fabric provider unavailable: " + problem);
            } else {
                log.warn("fabric provider unavailable: " + problem, null);
            }
            return runtime;
        }
        StringBuilder summary = new StringBuilder();
        for (Device d : opened) {
            summary.append(summary.isEmpty() ? "" : ", ").append(d.name()).append(" (")
                    .append(d.ports().size()).append(d.ports().size() == 1 ? " port)" : " ports)");
        }
        if (problem != null) {
            summary.append("; ").append(problem);
        }
        runtime.devices = Collections.unmodifiableList(opened);
        runtime.status = ProviderStatus.available(summary.toString());
        log.info("fabric provider: " + runtime.status.reason());
        return runtime;
    }

    /** Opens the matching devices into {@code out}; returns what went wrong, or null. */
    private String discover(List<Device> out) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment count = a.allocate(ValueLayout.JAVA_INT);
            MemorySegment list = (MemorySegment) ibv.getDeviceList.invokeExact(errno, count);
            if (list.equals(MemorySegment.NULL)) {
                // errno 38 (ENOSYS) without kernel RDMA support.
                return "no RDMA devices: ibv_get_device_list failed, " + Native.describeErrno(Native.errno(errno));
            }
            try {
                int n = count.get(ValueLayout.JAVA_INT, 0);
                if (n == 0) {
                    return "no RDMA devices: empty device list";
                }
                MemorySegment array = list.reinterpret(ValueLayout.ADDRESS.byteSize() * n);
                List<String> skipped = new ArrayList<>();
                List<String> failures = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    MemorySegment dev = array.getAtIndex(ValueLayout.ADDRESS, i);
                    String name = Native.string((MemorySegment) ibv.getDeviceName.invokeExact(dev));
                    if (!settings.deviceFilter().matcher(name).matches()) {
                        skipped.add(name);
                        continue;
                    }
                    try {
                        out.add(FabricDevice.open(this, dev));
                    } catch (VerbsException e) {
                        failures.add(e.getMessage());
                        log.warn("fabric provider: " + e.getMessage(), null);
                    }
                }
                if (!failures.isEmpty()) {
                    return (out.isEmpty() ? "no usable RDMA device: " : "") + String.join("; ", failures);
                }
                if (out.isEmpty()) {
                    return "no RDMA devices: none of " + skipped + " matches deviceFilter '"
                            + settings.deviceFilter().pattern() + "'";
                }
                return null;
            } finally {
                // Opened contexts stay valid after the list is freed (ibv_get_device_list(3)).
                ibv.freeDeviceList.invokeExact(list);
            }
        }
    }

    public ProviderStatus status() {
        return closed ? ProviderStatus.unavailable("the fabric provider is stopped") : status;
    }

    public List<Device> devices() {
        return closed || !status.available() ? List.of() : devices;
    }

    Ibv ibv() {
        return ibv;
    }

    FabricLog log() {
        return log;
    }

    Settings settings() {
        return settings;
    }

    /**
     * libibumad, loaded on first use.
     *
     * @throws VerbsException when it cannot be loaded
     */
    Umad umad() {
        synchronized (lazyLock) {
            if (umad == null) {
                umad = Umad.load(settings.umadLibrary());
            }
            if (umad.umad() == null) {
                throw new VerbsException("libibumad not available: " + umad.failure());
            }
            return umad.umad();
        }
    }

    /** An SA client over a port's transport, sharing the runtime's timer thread. */
    SubnetAdministrator subnetAdministrator(MadTransport transport) {
        synchronized (lazyLock) {
            if (closed) {
                throw new VerbsException("the fabric provider is stopped");
            }
            if (saClientLoop == null) {
                saClientLoop = new ThreadControlLoop("ipoib-fabric-sa-timer", saClientFailures);
            }
            if (transport instanceof UmadTransport umadTransport) {
                umadTransport.expectAnswersWithin(settings.saTimeoutMillis());
            }
            SaClient client = new SaClient(transport, saClientLoop, settings.saTimeoutMillis(), settings.saAttempts(),
                    settings.smKey());
            clients.add(client);
            return client;
        }
    }

    void forget(SubnetAdministrator client) {
        if (client instanceof SaClient c && clients.remove(c)) {
            c.close();
        }
    }

    /** Closes every device (and with it every resource) and the SA clients. Never throws. */
    @Override
    public void close() {
        ThreadControlLoop timers;
        synchronized (lazyLock) {
            if (closed) {
                return;
            }
            closed = true;
            timers = saClientLoop;
        }
        for (SaClient c : clients) {
            try {
                c.close();
            } catch (RuntimeException e) {
                log.warn("closing an SA client failed", e);
            }
        }
        for (Device d : devices) {
            try {
                ((FabricDevice) d).close();
            } catch (RuntimeException e) {
                log.warn("closing device " + d.name() + " failed", e);
            }
        }
        if (timers != null) {
            timers.close();
            try {
                timers.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
