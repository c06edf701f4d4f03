package ipoib.examples.udphello;

import ipoib.api.host.UdpDatagram;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * A user's component on the stack: it opens a UDP port through {@code UdpService} (on every
 * interface), follows the links' events as a {@link LinkListener}, and while the interface
 * {@code from} is UP greets {@code peer} every {@code intervalMillis}. It prints what it sends,
 * receives and hears of the links on standard output (an example; a real component logs).
 * Configured by the {@code udp.hello} PID, which this bundle's Configurator JSON sets.
 */
@Component(service = LinkListener.class, immediate = true, configurationPid = "udp.hello",
        configurationPolicy = ConfigurationPolicy.REQUIRE)
public final class UdpHello implements LinkListener {

    /** The {@code udp.hello} configuration. */
    public @interface Config {
        /** The UDP port listened on and greeted. */
        int port() default 7000;

        /** The interface the greetings leave from. */
        String from() default "ib0_1_ffff";

        /** The address greeted. */
        String peer() default "10.0.0.2";

        /** Time between two greetings. */
        long intervalMillis() default 1000;
    }

    private final Config config;
    private final InetAddress peer;
    private final UdpSocket socket;
    private final Set<String> up = ConcurrentHashMap.newKeySet();
    private final ScheduledExecutorService timer =
            Executors.newSingleThreadScheduledExecutor(r -> new Thread(r, "udp-hello"));
    private boolean connected;
    private int sent;

    @Activate
    public UdpHello(@Reference UdpService udp, Config config) throws UnknownHostException {
        this.config = config;
        this.peer = InetAddress.getByName(config.peer());
        this.socket = udp.open(config.port(), this::received);
        timer.scheduleWithFixedDelay(this::greet, 0, config.intervalMillis(), TimeUnit.MILLISECONDS);
        System.out.println("udp-hello: listening on UDP port " + config.port() + ", greeting " + config.peer()
                + " from " + config.from());
    }

    /** Called on the link's thread: quick, no blocking. */
    @Override
    public void linkChanged(IpoibLink link, Change change) {
        System.out.println("udp-hello: " + link.name() + " " + change);
        if (change == Change.UP) {
            up.add(link.name());
        } else if (change == Change.DOWN) {
            up.remove(link.name());
        }
    }

    /** On the timer's thread; an exception would end the schedule, so it is printed instead. */
    private void greet() {
        try {
            greetOnce();
        } catch (RuntimeException e) {
            System.out.println("udp-hello: greeting failed: " + e);
        }
    }

    /** Connects once the route exists, then sends one greeting. */
    private void greetOnce() {
        if (!up.contains(config.from())) {
            return;
        }
        if (!connected) {
            try {
                socket.connect(config.from(), peer, config.port());
                connected = true;
            } catch (IllegalStateException noRouteYet) {
                return; // the interface's address is not configured yet: the next tick tries again
            }
        }
        String greeting = "hello " + ++sent;
        TransmitResult result = socket.send(greeting.getBytes(StandardCharsets.UTF_8));
        System.out.println("udp-hello: sent '" + greeting + "' to " + config.peer() + ":" + config.port()
                + " on " + config.from() + ": " + result);
    }

    /** Called on the receiving link's thread, the datagram valid during the call only. */
    private void received(UdpDatagram datagram) {
        String text = new String(datagram.payload().toArray(ValueLayout.JAVA_BYTE), StandardCharsets.UTF_8);
        System.out.println("udp-hello: received '" + text + "' from " + datagram.source().getHostAddress() + ":"
                + datagram.sourcePort() + " on " + datagram.link());
    }

    @Deactivate
    void deactivate() {
        timer.shutdownNow();
        socket.close();
    }
}
