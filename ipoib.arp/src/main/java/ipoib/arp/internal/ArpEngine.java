package ipoib.arp.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressListener;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.neighbour.DeferredProtocol;
import ipoib.neighbour.EngineResolver;
import ipoib.neighbour.EngineTimer;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.ResolverLinks;
import ipoib.neighbour.Settings;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;

/**
 * ARP over IPoIB (RFC 4391 §9.2, RFC 826): the neighbour table of IPv4 ({@link NeighbourEngine})
 * with {@link ArpMessages} as its protocol, the links and the address table it is bound to, the
 * events that make it announce the interface's addresses (gratuitous ARP when an address is added,
 * when its interface comes up, when the link's paths went stale), and the resolver's operations.
 *
 * <p>A plain class: {@link ArpResolver} (the DS component) builds it from its configuration and
 * binds links and the address table to it; tests and benchmarks build it with the constructor,
 * on a manual or thread control loop. Solicitations, announcements and the timer run on the
 * control loop; frames arrive on the links' receive threads.
 */
public final class ArpEngine extends EngineResolver implements FrameHandler, LinkListener, AddressListener,
        AutoCloseable {

    private final ControlLoop control;
    private final InterfaceCounters counters = new InterfaceCounters(new Counters());
    private final NeighbourEngine engine;
    private final ResolverLinks links;
    private final EngineTimer timer;
    private final ArpMessages messages;

    /**
     * @param settings   the neighbour table's knobs ({@link Settings#DEFAULTS} are ARP's defaults)
     * @param gratuitous whether addresses are announced (gratuitous ARP)
     * @param control    the loop of solicitations, announcements and the timer; its clock is the engine's
     * @param reporter   logging and events
     */
    public ArpEngine(Settings settings, boolean gratuitous, ControlLoop control, Reporter reporter) {
        this.control = control;
        DeferredProtocol protocol = new DeferredProtocol();
        this.engine = new NeighbourEngine(false, protocol, settings, reporter, counters, control::execute,
                control.clock()::nanoTime);
        this.messages = new ArpMessages(gratuitous, engine, counters, control, reporter);
        protocol.bind(messages);
        this.links = new ResolverLinks(engine);
        this.timer = new EngineTimer(control, settings.tickMillis(), engine::tick);
    }

    /** A new configuration, applied without losing the tables. */
    public void reconfigure(Settings settings, boolean gratuitous) {
        engine.settings(settings);
        messages.gratuitous = gratuitous;
        timer.period(settings.tickMillis());
    }

    /** Stops the timer and drops the tables (queued frames counted). */
    @Override
    public void close() {
        timer.close();
        engine.close();
    }

    // ---- links and the address table ----------------------------------------------------------------

    /** A link to resolve on: its addresses are announced when it is UP. */
    public void addLink(IpoibLink link) {
        if (links.add(link)) {
            messages.announceAll(link);
        }
    }

    public void removeLink(IpoibLink link) {
        links.remove(link);
    }

    /** The host's address table: which addresses are ours, and the source of requests. */
    public void setAddresses(InterfaceAddresses table) {
        messages.addresses = table;
        for (IpoibLink link : links.all()) {
            if (link.state() == LinkState.UP) {
                messages.announceAll(link);
            }
        }
    }

    public void unsetAddresses(InterfaceAddresses table) {
        if (messages.addresses == table) {
            messages.addresses = null;
        }
    }

    // ---- link and address events ----------------------------------------------------------------------

    @Override
    public void linkChanged(IpoibLink link, LinkListener.Change change) {
        switch (change) {
            case UP -> {
                links.up(link);
                messages.announceAll(link);
            }
            case DOWN -> engine.linkDown(link);
            case PATHS_STALE -> {
                // The link refreshes its own paths; the neighbours learn that their paths to us may
                // have changed (our LID, a new SM) from a gratuitous ARP, and query them again.
                messages.announceAll(link);
            }
            case MULTICAST_RESET -> {
                // ARP uses only the broadcast group, which the link re-joins itself.
            }
        }
    }

    @Override
    public void addressChanged(InterfaceAddress address, AddressListener.Change change) {
        if (address.ipv6() || !address.state().usable()) {
            return;
        }
        if (change == AddressListener.Change.ADDED || change == AddressListener.Change.STATE) {
            IpoibLink link = links.get(address.link());
            if (link != null && link.state() == LinkState.UP) {
                int ip = AddressBits.ipv4(address.address());
                control.execute(() -> messages.announce(link, ip));
            }
        }
    }

    // ---- receive: ArpMessages ------------------------------------------------------------------------

    @Override
    public void onFrame(IpoibLink link, ReceivedFrame frame) {
        messages.onFrame(link, frame);
    }

    // ---- NeighbourResolver ------------------------------------------------------------------------------

    private static int ipv4(InetAddress address) {
        if (!(address instanceof Inet4Address)) {
            throw new IllegalArgumentException("the ARP resolver resolves IPv4 addresses, not "
                    + (address == null ? "null" : AddressBits.text(address)));
        }
        return AddressBits.ipv4(address);
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet) {
        return engine.send(link, 0, ipv4(nextHop) & 0xFFFF_FFFFL, etherType, packet);
    }

    @Override
    public PathInfoAnswer pathInfo(String linkName, InetAddress destination) {
        IpoibLink link = links.get(linkName);
        if (link == null) {
            return new PathInfoAnswer.NoSuchNode("no interface '" + linkName + "'");
        }
        return engine.pathInfo(link, 0, ipv4(destination) & 0xFFFF_FFFFL);
    }

    @Override
    public void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress) {
        int ip = ipv4(address);
        links.require(linkName);
        ResolverLinks.requireUnicast(linkAddress);
        engine.addPermanent(linkName, 0, ip & 0xFFFF_FFFFL, linkAddress);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        return engine.remove(linkName, 0, ipv4(address) & 0xFFFF_FFFFL);
    }

    @Override
    public int linkMtu(String linkName) {
        return links.upMtu(linkName);
    }

    @Override
    protected NeighbourEngine engine() {
        return engine;
    }
}
