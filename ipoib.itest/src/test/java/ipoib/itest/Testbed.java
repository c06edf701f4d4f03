package ipoib.itest;

import ipoib.api.Gid;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.HashSet;
import java.util.Hashtable;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.apache.felix.service.command.CommandProcessor;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * What the multicast and healing tests share: interfaces on the loopback fabric, a frame
 * handler that keeps what every interface receives, the shell, and the multicast service.
 */
final class Testbed {
    /** An EtherType for local experiments (IEEE 802 local experimental 1). */
    static final int EXPERIMENTAL = 0x88B5;
    /** Numbers the marker broadcasts of {@link #drainThrough}. */
    private static final AtomicLong MARKERS = new AtomicLong();

    private final BundleContext context;
    private final ConfigurationAdmin configurationAdmin;
    private final CommandProcessor shell;
    private final LinkedBlockingQueue<Frame> received = new LinkedBlockingQueue<>();
    private ServiceRegistration<FrameHandler> handler;

    /** A frame one interface received. */
    record Frame(String link, String text, boolean multicast, Gid destination, int sourceQpn) {}

    Testbed(BundleContext context, ConfigurationAdmin configurationAdmin, CommandProcessor shell) {
        this.context = context;
        this.configurationAdmin = configurationAdmin;
        this.shell = shell;
    }

    /**
     * The loopback fabric with this many HCAs (one port each) and further properties (name,
     * value, ...); waits until the provider has the HCAs.
     */
    void hcas(int count, Object... more) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?");
        Dictionary<String, Object> current = c.getProperties();
        Hashtable<String, Object> wanted = new Hashtable<>();
        wanted.put("hcas", count);
        for (int i = 0; i + 1 < more.length; i += 2) {
            wanted.put((String) more[i], more[i + 1]);
        }
        if (current != null && wanted.entrySet().stream().allMatch(e -> e.getValue().equals(current.get(e.getKey())))) {
            return;
        }
        c.update(wanted);
        Await.until(count + " HCAs", Duration.ofSeconds(20), () -> {
            try {
                return run("fabric:hcas").contains("loop" + (count - 1));
            } catch (Exception e) {
                return false;
            }
        });
    }

    /** Creates an interface unless it exists. */
    void createLink(String name, String device, Object... more) throws Exception {
        if (link(name) != null) {
            return;
        }
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", name, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("device", device);
        props.put("port", 1);
        props.put("pkey", "0xffff");
        for (int i = 0; i < more.length; i += 2) {
            props.put((String) more[i], more[i + 1]);
        }
        c.update(props);
    }

    IpoibLink link(String name) {
        try {
            var refs = context.getServiceReferences(IpoibLink.class, "(ipoib.link=" + name + ")");
            return refs.isEmpty() ? null : context.getService(refs.iterator().next());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    void awaitUp(String... names) {
        for (String name : names) {
            Await.until(name + " UP", Duration.ofSeconds(20),
                    () -> link(name), l -> l.state() == LinkState.UP);
        }
    }

    MulticastService multicast() {
        ServiceReference<MulticastService> ref = context.getServiceReference(MulticastService.class);
        if (ref == null) {
            throw new AssertionError("no MulticastService");
        }
        return context.getService(ref);
    }

    /** Starts keeping the frames of {@link #EXPERIMENTAL} every interface receives. */
    void listen() {
        if (handler == null) {
            Dictionary<String, Object> props = new Hashtable<>();
            props.put(FrameHandler.ETHERTYPE_PROPERTY, EXPERIMENTAL);
            handler = context.registerService(FrameHandler.class, this::onFrame, props);
        }
    }

    void stopListening() {
        if (handler != null) {
            handler.unregister();
            handler = null;
        }
        received.clear();
    }

    private void onFrame(IpoibLink link, ReceivedFrame frame) {
        byte[] bytes = frame.buffer().asSlice(frame.payloadOffset(), frame.payloadLength()).toArray(ValueLayout.JAVA_BYTE);
        received.add(new Frame(link.name(), new String(bytes, StandardCharsets.US_ASCII), frame.multicast(),
                frame.destinationGid(), frame.sourceQpn()));
    }

    /** The next received frame that matches, within the timeout; others are dropped. */
    Frame await(String what, Predicate<Frame> match) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        List<Frame> seen = new ArrayList<>();
        while (System.nanoTime() < deadline) {
            Frame f = received.poll(100, TimeUnit.MILLISECONDS);
            if (f == null) {
                continue;
            }
            if (match.test(f)) {
                return f;
            }
            seen.add(f);
        }
        throw new AssertionError("no frame: " + what + "; received meanwhile: " + seen);
    }

    /**
     * Whether a matching frame arrives within {@code within}: at the first one (for a send
     * repeated until it gets through); the frames before it are dropped.
     */
    boolean receives(Duration within, Predicate<Frame> match) throws InterruptedException {
        long deadline = System.nanoTime() + within.toNanos();
        for (long left = within.toNanos(); left > 0; left = deadline - System.nanoTime()) {
            Frame f = received.poll(left, TimeUnit.NANOSECONDS);
            if (f != null && match.test(f)) {
                return true;
            }
        }
        return false;
    }

    /** Every frame received within a short while (for "nobody else got it"), then empty. */
    List<Frame> drain(Duration quiet) throws InterruptedException {
        List<Frame> out = new ArrayList<>();
        for (Frame f; (f = received.poll(quiet.toMillis(), TimeUnit.MILLISECONDS)) != null; ) {
            out.add(f);
        }
        return out;
    }

    /**
     * Every frame the receivers got before a broadcast that {@code sender} sends now, then empty
     * (for "nobody else got it" without waiting out a quiet while): the loopback fabric puts a
     * datagram into its receivers' queues while it is sent, and each interface reads its queue in
     * order, so a frame sent before the broadcast is received before it. A sender does not hear
     * its own broadcast: another interface's broadcast covers it.
     */
    List<Frame> drainThrough(String sender, String... receivers) throws InterruptedException {
        String marker = "marker " + MARKERS.incrementAndGet();
        IpoibLink from = link(sender);
        if (from == null) {
            throw new AssertionError("no interface " + sender + " to send the marker broadcast");
        }
        TransmitResult sent = from.sendBroadcast(EXPERIMENTAL, payload(marker));
        if (sent != TransmitResult.SENT) {
            throw new AssertionError("the marker broadcast from " + sender + " was not sent: " + sent);
        }
        Set<String> waiting = new HashSet<>(List.of(receivers));
        List<Frame> before = new ArrayList<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!waiting.isEmpty()) {
            Frame f = received.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (f == null) {
                throw new AssertionError("the marker broadcast from " + sender + " did not reach " + waiting
                        + "; received meanwhile: " + before);
            }
            if (f.text().equals(marker)) {
                waiting.remove(f.link());
            } else if (!f.text().startsWith("marker ")) {
                before.add(f);
            }
        }
        return before;
    }


    void clearReceived() {
        received.clear();
    }

    static MemorySegment payload(String text) {
        return MemorySegment.ofArray(text.getBytes(StandardCharsets.US_ASCII));
    }

    /** Runs a shell command; its output, or the exception it threw. */
    String run(String command) throws Exception {
        return GogoShell.run(shell, command);
    }

    /** Runs a shell command that must fail; the failure's message. */
    String fail(String command) {
        return GogoShell.failure(shell, command);
    }
}
