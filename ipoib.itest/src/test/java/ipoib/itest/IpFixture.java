package ipoib.itest;

import ipoib.api.host.EchoReply;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.IpHost;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.felix.service.command.CommandProcessor;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * What the IP-layer tests share: interfaces and addresses on the loopback fabric, services
 * looked up fresh (bundles are restarted in some tests), pings, and shell commands.
 */
final class IpFixture {
    private static final AtomicInteger SEQUENCE = new AtomicInteger();

    final BundleContext context;
    final ConfigurationAdmin configurationAdmin;

    IpFixture(BundleContext context, ConfigurationAdmin configurationAdmin) {
        this.context = context;
        this.configurationAdmin = configurationAdmin;
    }

    <T> T service(Class<T> type, String filter) {
        try {
            var refs = context.getServiceReferences(type, filter);
            if (refs.isEmpty()) {
                return null;
            }
            ServiceReference<T> ref = refs.iterator().next();
            return context.getService(ref);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    <T> T await(Class<T> type, String filter) {
        Await.until(type.getSimpleName() + " " + (filter == null ? "" : filter), Duration.ofSeconds(20),
                () -> service(type, filter) != null);
        return service(type, filter);
    }

    IpoibLink link(String name) {
        return service(IpoibLink.class, "(ipoib.link=" + name + ")");
    }

    NeighbourResolver arp() {
        return await(NeighbourResolver.class, "(ipoib.family=ipv4)");
    }

    NeighbourResolver nd() {
        return await(NeighbourResolver.class, "(ipoib.family=ipv6)");
    }

    IpHost host() {
        return await(IpHost.class, null);
    }

    InterfaceAddresses addresses() {
        return await(InterfaceAddresses.class, null);
    }

    void createLink(String name, String device, String pkey) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", name, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("device", device);
        props.put("port", 1);
        props.put("pkey", pkey);
        c.update(props);
    }

    void awaitUp(String name) {
        Await.until(name + " UP", Duration.ofSeconds(20),
                () -> link(name), l -> l.state() == LinkState.UP);
    }

    /** Sets properties of a singleton configuration (ipoib.arp, ipoib.nd, ipoib.verbs.loopback ...). */
    void configure(String pid, Object... keyValues) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration(pid, "?");
        Dictionary<String, Object> props = c.getProperties() == null ? new Hashtable<>() : c.getProperties();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        c.update(props);
    }

    void address(String link, String address, int prefix) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        addresses().add(link, a, prefix, ipoib.api.host.AddressOrigin.MANUAL, null);
    }

    InterfaceAddress findAddress(String link, String address) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        return addresses().addresses(link).stream().filter(x -> x.address().equals(a)).findFirst().orElse(null);
    }

    /** One echo request; the reply, or null when none came within the timeout or it was not sent. */
    EchoReply ping(String link, String destination, Duration timeout) throws Exception {
        CompletableFuture<EchoReply> reply = host().echo(link, InetAddress.getByName(destination), 0x4242,
                SEQUENCE.incrementAndGet() & 0xFFFF, 32, timeout).toCompletableFuture();
        try {
            return reply.get(timeout.toMillis() + 2000, TimeUnit.MILLISECONDS);
        } catch (ExecutionException | TimeoutException e) {
            return null;
        }
    }

    /**
     * Pings until a reply comes; returns the time that took. A lost request is given up after
     * 50 ms at first, twice that for each one lost after it, up to 300 ms: a reply on the loopback
     * fabric takes well under a millisecond, so a request lost to a route or partition still
     * changing costs little, and a slow machine still gets its 300 ms.
     */
    Duration pingUntilReply(String link, String destination, Duration within) throws Exception {
        long start = System.nanoTime();
        long deadline = start + within.toNanos();
        long wait = 50;
        while (System.nanoTime() < deadline) {
            if (ping(link, destination, Duration.ofMillis(wait)) != null) {
                return Duration.ofNanos(System.nanoTime() - start);
            }
            wait = Math.min(300, wait * 2);
        }
        throw new AssertionError("no echo reply from " + destination + " via " + link + " within " + within.toMillis()
                + " ms; neighbours " + neighbours() + " host counters " + host().counters());
    }

    List<NeighbourEntry> neighbours() {
        NeighbourResolver arp = service(NeighbourResolver.class, "(ipoib.family=ipv4)");
        NeighbourResolver nd = service(NeighbourResolver.class, "(ipoib.family=ipv6)");
        List<NeighbourEntry> all = new java.util.ArrayList<>();
        if (arp != null) {
            all.addAll(arp.neighbours(null));
        }
        if (nd != null) {
            all.addAll(nd.neighbours(null));
        }
        return all;
    }

    NeighbourEntry neighbour(NeighbourResolver resolver, String link, String address) throws Exception {
        InetAddress a = InetAddress.getByName(address);
        return resolver.neighbours(link).stream().filter(e -> e.address().equals(a)).findFirst().orElse(null);
    }

    long counter(NeighbourResolver resolver, String name) {
        Long v = resolver.counters().get(name);
        if (v == null) {
            throw new AssertionError("no counter " + name + " in " + resolver.counters());
        }
        return v;
    }

    Bundle bundle(String symbolicName) {
        return Arrays.stream(context.getBundles()).filter(b -> symbolicName.equals(b.getSymbolicName())).findFirst()
                .orElseThrow(() -> new AssertionError("no bundle " + symbolicName));
    }

    /** The result of a shell command: its output, or the exception it threw. */
    GogoShell.Result shell(String command) {
        return GogoShell.execute(await(CommandProcessor.class, null), command);
    }

    /** Runs a command that must succeed; returns its output. */
    String run(String command) {
        GogoShell.Result s = shell(command);
        if (s.error() != null) {
            throw new AssertionError("command '" + command + "' failed: " + s.error() + "\n" + s.output(), s.error());
        }
        return s.output();
    }

    static Map<String, Long> diff(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> out = new java.util.TreeMap<>();
        after.forEach((k, v) -> {
            long d = v - before.getOrDefault(k, 0L);
            if (d != 0) {
                out.put(k, d);
            }
        });
        return out;
    }
}
