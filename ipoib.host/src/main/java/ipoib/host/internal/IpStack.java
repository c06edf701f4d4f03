package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.host.HostRoute;
import ipoib.api.host.IpHost;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.Clock;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Counters;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceThreadCounters;
import ipoib.runtime.PerThread;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.net.InetAddress;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * The IP host engine, a plain object: built by {@link HostComponent} in the framework and directly
 * by tests and benchmarks. It wires the parts, each of one concept: {@link Router} (the routing
 * decision), {@link PacketWriter} (IP headers in scratch buffers), {@link Transmitter} (next hop),
 * {@link EchoRequests}, {@link EchoResponder} and {@link EchoDemux} (ICMP echo), {@link UdpSockets}, and the two
 * EtherType handlers {@link Ipv4Receiver} and {@link Ipv6Receiver} (which hands Neighbor
 * Discovery to {@link NdReceivers}).
 */
public final class IpStack implements IpHost, UdpService {
    private final AddressTable table;
    private final HostLinks links = new HostLinks();
    private final NextHops nextHops = new NextHops();
    private final Counters counters = new Counters();
    /** The counters of every packet (per thread, no atomic instruction); the rest are in {@link #counters}. */
    /** Per interface as well as in total (the totals are {@code counters}'). */
    private final InterfaceCounters perEvent = new InterfaceCounters(counters);
    private final InterfaceThreadCounters perPacket = new InterfaceThreadCounters(counters);
    private final Router router;
    private final RouteLookup routes;
    private final PacketWriter writer = new PacketWriter();
    private final Transmitter transmitter;
    private final EchoRequests echoes;
    private final EchoResponder responder;
    private final UdpSockets udp;
    private final NdReceivers nd;
    private final Ipv4Receiver ipv4;
    private final Ipv6Receiver ipv6;
    private final InterfaceCounters.Counter txNoRoute;
    /**
     * Counts the changes of the links and resolvers: with the address table's generation, what a
     * connected socket checks per datagram instead of routing again (see {@link #routeGeneration}).
     */
    private final java.util.concurrent.atomic.AtomicInteger linkGeneration = new java.util.concurrent.atomic.AtomicInteger();
    private final int udpOut;
    /** The echo requests' timeouts; closed with the stack when the stack made it. */
    private final ControlLoop timers;
    private final boolean ownTimers;

    /**
     * The stack with its timers on a thread of its own, {@code ipoib-host}, whose failures are
     * counted ({@code timer_failures}) and reported to {@code warn} at most once per 10 s.
     *
     * @param table the interface addresses
     * @param warn where rare failures (a UDP receiver throwing) are reported
     */
    public IpStack(AddressTable table, Consumer<String> warn) {
        this(table, warn, router -> router, null);
    }

    /** The stack with its timers on {@code timers} (a manual loop in tests), which the caller closes. */
    public IpStack(AddressTable table, Consumer<String> warn, ControlLoop timers) {
        this(table, warn, router -> router, timers);
    }

    /** As {@link #IpStack(AddressTable, Consumer)}, with the routing decision wrapped (tests count it). */
    IpStack(AddressTable table, Consumer<String> warn, Function<RouteLookup, RouteLookup> routeWrapper) {
        this(table, warn, routeWrapper, null);
    }

    private IpStack(AddressTable table, Consumer<String> warn, Function<RouteLookup, RouteLookup> routeWrapper,
                    ControlLoop timers) {
        this.ownTimers = timers == null;
        this.timers = ownTimers ? new ThreadControlLoop("ipoib-host", timerFailures(warn)) : timers;
        this.table = table;
        this.router = new Router(links, table, nextHops);
        this.routes = routeWrapper.apply(router);
        this.transmitter = new Transmitter(table, nextHops, perPacket);
        this.echoes = new EchoRequests(links, writer, transmitter, perEvent, this.timers);
        this.responder = new EchoResponder(writer, transmitter, router, perEvent);
        this.udp = new UdpSockets(perEvent, perPacket, warn);
        this.nd = new NdReceivers(perEvent, warn);
        EchoDemux echo = new EchoDemux(echoes, responder);
        this.ipv4 = new Ipv4Receiver(table, echo, udp, perEvent, perPacket);
        this.ipv6 = new Ipv6Receiver(table, nd, echo, udp, perEvent, perPacket);
        this.txNoRoute = perEvent.counter("tx_no_route");
        this.udpOut = perPacket.counter("udp_sent");
    }

    // ---- configuration and collaborators --------------------------------------------------------------

    /** IPv4 TTL and IPv6 hop limit of the packets sent (1..255, checked by the caller's configuration). */
    public void ttl(int ttl) {
        writer.ttl = ttl;
    }

    /** Whether echo requests to the host's addresses are answered. */
    public void answerEcho(boolean answer) {
        responder.answer = answer;
    }

    /**
     * Whether IPv4 echo requests to a broadcast or multicast address go unanswered (Linux's
     * icmp_echo_ignore_broadcasts, default true), and IPv6 ones to a multicast group (Linux's
     * icmp/echo_ignore_multicast, default false).
     */
    public void echoToGroups(boolean ignoreBroadcasts4, boolean ignoreMulticast6) {
        responder.ignoreBroadcasts = ignoreBroadcasts4;
        responder.ignoreMulticast6 = ignoreMulticast6;
    }

    public void addLink(IpoibLink link) {
        links.add(link);
        linkGeneration.incrementAndGet();
    }

    public void removeLink(IpoibLink link) {
        links.remove(link);
        linkGeneration.incrementAndGet();
    }

    /** The resolver of a family, or null while there is none. */
    public void resolver(boolean v6, NeighbourResolver resolver) {
        if (v6) {
            nextHops.ipv6 = resolver;
        } else {
            nextHops.ipv4 = resolver;
        }
        // The resolver may set the MTU of a route.
        linkGeneration.incrementAndGet();
    }

    public void multicast(MulticastService multicast) {
        nextHops.multicast = multicast;
    }

    MulticastService multicast() {
        return nextHops.multicast;
    }

    public void addNdReceiver(NeighborDiscoveryReceiver receiver) {
        nd.add(receiver);
    }

    public void removeNdReceiver(NeighborDiscoveryReceiver receiver) {
        nd.remove(receiver);
    }

    /** The handler of EtherType 0x0800. */
    public FrameHandler ipv4Handler() {
        return ipv4;
    }

    /** The one handler of EtherType 0x86DD (Neighbor Discovery included). */
    public FrameHandler ipv6Handler() {
        return ipv6;
    }

    IpoibLink link(String name) {
        return links.get(name);
    }

    List<IpoibLink> links() {
        return links.all();
    }

    // ---- IpHost -------------------------------------------------------------------------------------------

    @Override
    public Optional<HostRoute> route(String linkName, InetAddress destination) {
        return routes.route(linkName, destination);
    }

    String noRoute(String linkName, InetAddress destination) {
        return router.noRoute(linkName, destination);
    }

    @Override
    public CompletableFuture<EchoReply> echo(String linkName, InetAddress destination, int identifier, int sequence,
                                             int payloadLength, Duration timeout) {
        HostRoute route = routes.route(linkName, destination).orElse(null);
        if (route == null) {
            noRouteCounted(linkName);
            return CompletableFuture.failedFuture(new HostException(noRoute(linkName, destination),
                    TransmitResult.DROPPED_NO_ROUTE));
        }
        return echoes.send(route, identifier, sequence, payloadLength, timeout);
    }

    @Override
    public CompletableFuture<EchoReply> echo(HostRoute route, int identifier, int sequence, int payloadLength,
                                             Duration timeout) {
        return echoes.send(route, identifier, sequence, payloadLength, timeout);
    }

    @Override
    public Map<String, Long> counters() {
        return counters.snapshot();
    }

    @Override
    public Map<String, Map<String, Long>> countersByInterface() {
        Map<String, Map<String, Long>> events = perEvent.byInterface();
        Map<String, Map<String, Long>> packets = perPacket.byInterface();
        Map<String, Map<String, Long>> out = new java.util.TreeMap<>();
        for (String link : union(events.keySet(), packets.keySet())) {
            Map<String, Long> values = new java.util.LinkedHashMap<>();
            // In the totals' order, every counter of either kind (zero where the interface counted none).
            for (String name : counters.snapshot().keySet()) {
                Long v = events.getOrDefault(link, Map.of()).get(name);
                Long p = packets.getOrDefault(link, Map.of()).get(name);
                if (v != null || p != null || perEvent.has(name) || perPacket.has(name)) {
                    values.put(name, (v == null ? 0 : v) + (p == null ? 0 : p));
                }
            }
            out.put(link, values);
        }
        return out;
    }

    private static java.util.Set<String> union(java.util.Set<String> a, java.util.Set<String> b) {
        java.util.Set<String> u = new java.util.TreeSet<>(a);
        u.addAll(b);
        return u;
    }

    // ---- UDP ----------------------------------------------------------------------------------------------

    @Override
    public UdpSocket open(int port, UdpReceiver receiver) {
        return udp.bind(port, receiver, p -> new UdpSocketImpl(this, p, receiver));
    }

    void unbind(int port, UdpSocketImpl socket) {
        udp.unbind(port, socket);
    }

    /**
     * The generation of the routes: it changes whenever a route may have changed (an address, a
     * link or a resolver came or went). Two ints, read in this order before routing: a change in
     * between makes what was routed stale at once.
     */
    int addressGeneration() {
        return table.generation();
    }

    int linkGeneration() {
        return linkGeneration.get();
    }

    Transmitter transmitter() {
        return transmitter;
    }

    PacketWriter writer() {
        return writer;
    }

    /**
     * What a sending thread needs per datagram, found with one thread-local look-up instead of
     * one each (JFR had the three look-ups at a fifth of the send side): its scratch buffer and
     * its counter cells.
     */
    static final class Sending {
        final PacketWriter.Scratch scratch;
        final InterfaceThreadCounters.Local cells;

        Sending(PacketWriter.Scratch scratch, InterfaceThreadCounters.Local cells) {
            this.scratch = scratch;
            this.cells = cells;
        }
    }

    /** Per sending thread, often another bundle's: not a ThreadLocal, which would keep this revision's classes. */
    private final PerThread<Sending> sending = new PerThread<>(
            () -> new Sending(PacketWriter.scratch(), perPacket.local()));

    /** The calling thread's {@link Sending}. */
    Sending sending() {
        return sending.get();
    }

    void udpSent(InterfaceThreadCounters.Local cells, String linkName) {
        cells.of(linkName).increment(udpOut);
    }

    /** A datagram with no route ({@code linkName} null when none was asked for). */
    void noRouteCounted(String linkName) {
        // A name that is no interface (typed by a user) counts in the total only: no series for it.
        txNoRoute.increment(linkName != null && links.get(linkName) != null ? linkName : null);
    }

    /** Counts every failure of a timer task and reports one per 10 s. */
    private FailureHandler timerFailures(Consumer<String> warn) {
        LongAdder failed = counters.counter("timer_failures");
        RateLimitedFailures limited = new RateLimitedFailures((message, failure) -> warn.accept(message + ": " + failure),
                Clock.SYSTEM, 10, TimeUnit.SECONDS);
        return (message, failure) -> {
            failed.increment();
            limited.failed(message, failure);
        };
    }

    /** Fails the echoes still waiting (the host is stopping) and stops the timers the stack made. */
    public void close() {
        echoes.close();
        if (ownTimers) {
            timers.close();
        }
    }
}
