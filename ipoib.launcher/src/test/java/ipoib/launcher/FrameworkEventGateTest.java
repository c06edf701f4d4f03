package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleEvent;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceEvent;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.SynchronousBundleListener;
import org.osgi.framework.hooks.bundle.EventHook;
import org.osgi.framework.hooks.service.EventListenerHook;
import org.osgi.framework.launch.Framework;
import org.osgi.service.log.LogLevel;

/**
 * In a real framework: the log bundle's unfiltered service listener and its bundle listener see
 * the events the framework threshold wants, and none below it; its filtered listeners (its
 * ServiceTrackers) and every other bundle's see every event.
 */
class FrameworkEventGateTest {
    @TempDir
    Path storage;
    private Framework framework;
    private FrameworkEventGate gate;
    private final List<String> logAll = new CopyOnWriteArrayList<>();
    private final List<String> logFiltered = new CopyOnWriteArrayList<>();
    private final List<String> logBundles = new CopyOnWriteArrayList<>();
    private final List<String> other = new CopyOnWriteArrayList<>();
    private final List<String> otherBundles = new CopyOnWriteArrayList<>();
    private Bundle example;

    @BeforeEach
    void start() throws Exception {
        framework = new FrameworkFactory().newFramework(Map.of(Constants.FRAMEWORK_STORAGE, storage.toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        framework.start();
        BundleContext system = framework.getBundleContext();
        gate = new FrameworkEventGate(LogLevel.WARN);
        system.registerService(new String[] {EventListenerHook.class.getName(), EventHook.class.getName()}, gate,
                new Hashtable<>());
        BundleContext log = emptyBundle(FrameworkEventGate.LOG_BUNDLE).getBundleContext();
        log.addServiceListener(e -> logAll.add(type(e)));
        log.addServiceListener(e -> logFiltered.add(type(e)), "(objectClass=java.lang.Runnable)");
        // Felix Log's bundle listener is asynchronous; a synchronous one is held back the same way
        // and needs no waiting here.
        log.addBundleListener((SynchronousBundleListener) e -> logBundles.add(bundleType(e)));
        system.addServiceListener(e -> other.add(type(e)));
        system.addBundleListener((SynchronousBundleListener) e -> otherBundles.add(bundleType(e)));
        example = emptyBundle("example");
    }

    @AfterEach
    void stop() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    private Bundle emptyBundle(String name) throws Exception {
        return EmptyBundles.installAndStart(framework.getBundleContext(), storage, name);
    }

    private static String type(ServiceEvent e) {
        return switch (e.getType()) {
            case ServiceEvent.REGISTERED -> "REGISTERED";
            case ServiceEvent.MODIFIED -> "MODIFIED";
            case ServiceEvent.UNREGISTERING -> "UNREGISTERING";
            default -> "OTHER";
        };
    }

    private static String bundleType(BundleEvent e) {
        return e.getType() == BundleEvent.STOPPED ? "STOPPED" : e.getType() == BundleEvent.STARTED ? "STARTED" : "OTHER";
    }

    /** A service's life, and a bundle's stop and start. */
    private void events() throws Exception {
        ServiceRegistration<Runnable> r = example.getBundleContext().registerService(Runnable.class, () -> { },
                new Hashtable<>(Map.of("k", 1)));
        r.setProperties(new Hashtable<>(Map.of("k", 2)));
        r.unregister();
        example.stop();
        example.start();
    }

    private void clear() {
        List.of(logAll, logFiltered, logBundles, other, otherBundles).forEach(List::clear);
    }

    @Test
    void atWarnTheLogSeesNoBundleOrServiceEventsAndTheOthersSeeThemAll() throws Exception {
        clear();
        events();
        assertEquals(List.of(), logAll);
        assertEquals(List.of(), logBundles.stream().filter(t -> !t.equals("OTHER")).toList());
        assertEquals(List.of("REGISTERED", "MODIFIED", "UNREGISTERING"), logFiltered);
        assertEquals(List.of("REGISTERED", "MODIFIED", "UNREGISTERING"), other);
        assertEquals(List.of("STOPPED", "STARTED"), otherBundles.stream().filter(t -> !t.equals("OTHER")).toList());
    }

    @Test
    void atInfoTheLogSeesWhatFelixLogRecordsAtInfo() throws Exception {
        gate.threshold(LogLevel.INFO);
        clear();
        events();
        assertEquals(List.of("REGISTERED", "UNREGISTERING"), logAll);
        assertEquals(List.of("STOPPED", "STARTED"), logBundles.stream().filter(t -> !t.equals("OTHER")).toList());
    }

    @Test
    void atDebugTheLogSeesEveryEvent() throws Exception {
        gate.threshold(LogLevel.DEBUG);
        clear();
        events();
        assertEquals(List.of("REGISTERED", "MODIFIED", "UNREGISTERING"), logAll);
        assertEquals(List.of("STOPPED", "STARTED"), logBundles.stream().filter(t -> !t.equals("OTHER")).toList());
        gate.threshold(LogLevel.WARN);
        clear();
        events();
        assertEquals(List.of(), logAll);
    }
}
