package ipoib.bench;

import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.arp.internal.ArpEngine;
import ipoib.neighbour.Settings;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.Reporter;
import ipoib.runtime.ThreadControlLoop;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * ARP for the benchmarks, without OSGi: an {@link ArpEngine} with ARP's default configuration on
 * its own control thread, bound to one link and an address table as its DS component would bind
 * it; warnings and errors go to standard error.
 */
final class BenchArp implements AutoCloseable {
    final ArpEngine engine;
    private final ThreadControlLoop control;

    BenchArp(String name, InterfaceAddresses addresses, IpoibLink link) {
        control = new ThreadControlLoop("ipoib-arp-" + name, FailureHandler.JAVA_LOGGING);
        engine = new ArpEngine(Settings.DEFAULTS, true, control, new Reporter() {
            @Override public void info(String message) { }
            @Override public void warn(String message) { System.err.println("ARP " + name + " warn: " + message); }
            @Override public void error(String message) { System.err.println("ARP " + name + " error: " + message); }
            @Override public void event(String topic, Map<String, Object> properties) { }
        });
        engine.setAddresses(addresses);
        engine.addLink(link);
    }

    @Override
    public void close() {
        engine.close();
        control.close();
        try {
            control.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
