package ipoib.nd.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressListener;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.codec.DecodeException;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.codec.nd.NeighborAdvertisement;
import ipoib.codec.nd.NeighborSolicitation;
import ipoib.codec.nd.Redirect;
import ipoib.codec.nd.RouterAdvertisement;
import ipoib.codec.nd.RouterSolicitation;
import ipoib.neighbour.DeferredProtocol;
import ipoib.neighbour.EngineResolver;
import ipoib.neighbour.EngineTimer;
import ipoib.neighbour.LogLines;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.ResolverLinks;
import ipoib.neighbour.Settings;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Counters;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.RateLimiter;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.InstantSource;
import java.util.concurrent.TimeUnit;

/**
 * IPv6 Neighbor Discovery over IPoIB (RFC 4861 with the 24-octet link-layer address options of
 * RFC 4391 §9.3) and address autoconfiguration (RFC 4862), wired from one class per concept:
 *
 * <ul>
 * <li>{@link LinkLocalAddresses}: each interface's link-local address from the port GUID with
 *     the u-bit rule of RFC 4391 §8, or from its LID when configured;
 * <li>{@link Memberships}: all-nodes and the solicited-node group of each address, joined
 *     through the {@link MulticastService} (as listener joins, which make the port a FullMember);
 * <li>{@link DuplicateAddressDetection}: every new address, and every address of an interface
 *     that comes up, is tentative until DAD passes;
 * <li>{@link NeighborMessages}: NS/NA, the protocol of the shared neighbour table;
 * <li>{@link RouterDiscovery} and {@link Autoconfiguration}: RS once the link-local address is
 *     usable, RA processing, SLAAC.
 * </ul>
 *
 * <p>{@link LinkEvents} runs what a link's UP, DOWN and address changes mean for these parts.
 *
 * <p>A plain class: {@link NdResolver} (the DS component) builds it from its configuration and
 * binds the links, the address table and the multicast manager to it; tests build it with the
 * constructor on a manual control loop. Control-plane work runs on the control loop; frames
 * arrive on the links' receive threads and are answered there when that needs no state of ND.
 */
public final class NdEngine extends EngineResolver implements NeighborDiscoveryReceiver, LinkListener,
        AddressListener, AutoCloseable {

    private final ControlLoop control;
    private final Reporter reporter;
    private final NeighbourEngine neighbours;
    private final NdServices nd;
    private final EngineTimer timer;
    private final Memberships memberships;
    private final UnsolicitedAdvertisements advertisements;
    private final RouterDiscovery routers;
    private final Autoconfiguration autoconf;
    private final DuplicateAddressDetection dad;
    private final NeighborMessages messages;
    private final LinkEvents events;
    private final RateLimiter malformedLog;

    /**
     * @param settings the neighbour table's knobs (RetransTimer is also DAD's interval)
     * @param options  ND's own knobs ({@link NdOptions#DEFAULTS})
     * @param control  the loop of the control plane and the timer; its clock is ND's
     * @param reporter logging and events
     */
    public NdEngine(Settings settings, NdOptions options, ControlLoop control, Reporter reporter) {
        this(settings, options, control, reporter, InstantSource.system());
    }

    /**
     * {@link #NdEngine(Settings, NdOptions, ControlLoop, Reporter)} with the wall clock of the
     * autoconfigured addresses' lifetimes (the host's address table keeps them as instants).
     */
    public NdEngine(Settings settings, NdOptions options, ControlLoop control, Reporter reporter,
                    InstantSource wallClock) {
        this.control = control;
        this.reporter = reporter;
        InterfaceCounters counters = new InterfaceCounters(new Counters());
        NdCounters c = new NdCounters(counters);
        this.malformedLog = new RateLimiter(control.clock(), 10, TimeUnit.SECONDS);
        DeferredProtocol protocol = new DeferredProtocol();
        this.neighbours = new NeighbourEngine(true, protocol, settings, reporter, counters, control::execute,
                control.clock()::nanoTime);
        this.nd = new NdServices(options, new ResolverLinks(neighbours), control, reporter, c);
        LinkLocalAddresses linkLocals = new LinkLocalAddresses(nd);
        this.memberships = new Memberships(nd);
        this.advertisements = new UnsolicitedAdvertisements(nd);
        this.autoconf = new Autoconfiguration(nd, linkLocals, wallClock);
        this.routers = new RouterDiscovery(nd, linkLocals, autoconf, neighbours);
        this.dad = new DuplicateAddressDetection(nd, memberships, advertisements, routers,
                () -> neighbours.settings().retransmitMillis());
        this.messages = new NeighborMessages(nd, dad, neighbours);
        protocol.bind(messages);
        this.events = new LinkEvents(nd, memberships, linkLocals, dad, routers);
        this.timer = new EngineTimer(control, settings.tickMillis(), this::tick);
    }

    /**
     * A new configuration, applied without losing the tables; a new interface identifier or
     * link-local setting applies at once: the link-local address of the old
     * identifier goes and the new one goes through DAD.
     */
    public void reconfigure(Settings settings, NdOptions options) {
        neighbours.settings(settings);
        NdOptions before = nd.options;
        nd.options = options;
        timer.period(settings.tickMillis());
        if (before.lidIdentifier() != options.lidIdentifier() || before.linkLocal() != options.linkLocal()) {
            for (IpoibLink link : nd.links.all()) {
                nd.run(() -> events.up(link, false));
            }
        }
    }

    /**
     * Leaves the groups joined for ND (so that the multicast manager's listener counts stay right
     * across an update of this bundle), stops the timer and drops the tables.
     */
    @Override
    public void close() {
        try {
            control.run(() -> nd.state.forEach(memberships::leaveAll), 2, TimeUnit.SECONDS);
        } catch (RuntimeException e) {
            reporter.debug("leaving the ND groups on deactivation: " + e);
        }
        timer.close();
        neighbours.close();
    }

    private void tick() {
        neighbours.tick();
        dad.tick();
        routers.tick();
        autoconf.tick();
    }

    // ---- bound services -----------------------------------------------------------------------------

    /** A link to run ND on: brought up when UP. */
    public void addLink(IpoibLink link) {
        if (nd.links.add(link)) {
            nd.run(() -> events.up(link, false));
        }
    }

    public void removeLink(IpoibLink link) {
        nd.links.remove(link);
        nd.run(() -> events.unbound(link));
    }

    /** The host's address table. */
    public void setAddresses(InterfaceAddresses table) {
        nd.addresses = table;
        nd.run(events::resumeAll);
    }

    public void unsetAddresses(InterfaceAddresses table) {
        if (nd.addresses == table) {
            nd.addresses = null;
        }
    }

    /** The multicast manager: NS to solicited-node groups, NA/RS, DAD, group joins. */
    public void setMulticast(MulticastService service) {
        nd.multicast = service;
        nd.run(() -> {
            memberships.forgetAll(); // a new multicast manager knows none of our joins
            events.resumeAll();
        });
    }

    public void unsetMulticast(MulticastService service) {
        if (nd.multicast == service) {
            nd.multicast = null;
            nd.run(memberships::forgetAll);
        }
    }

    // ---- link and address events ----------------------------------------------------------------------

    @Override
    public void linkChanged(IpoibLink link, LinkListener.Change change) {
        switch (change) {
            case UP -> {
                nd.links.up(link);
                nd.run(() -> events.up(link, true));
            }
            case DOWN -> {
                neighbours.linkDown(link);
                nd.run(() -> events.down(link));
            }
            case PATHS_STALE -> {
                // The link refreshes its own paths; the neighbours learn that their paths to us may
                // have changed (our LID, a new SM) from unsolicited advertisements, and query them again.
                nd.run(() -> advertisements.advertiseAll(link));
            }
            case MULTICAST_RESET -> {
                // The multicast manager joins its listener groups again by itself.
            }
        }
    }

    @Override
    public void addressChanged(InterfaceAddress address, AddressListener.Change change) {
        if (!address.ipv6()) {
            return;
        }
        IpoibLink link = nd.links.get(address.link());
        if (link == null) {
            return;
        }
        events.addressChanged(link, address, change);
    }

    // ---- receive (the link's receive thread) -------------------------------------------------------------

    /** The host's IPv6 demultiplexer hands over ICMPv6 types 133..137; everything else of IPv6 stays there. */
    @Override
    public void onNeighborDiscovery(IpoibLink link, ReceivedFrame frame, int icmpv6Type) {
        MemorySegment buf = frame.buffer();
        long off = frame.payloadOffset();
        int length = frame.payloadLength();
        if (!NdCodec.isNeighborDiscovery(buf, off, length)) {
            return; // the host classified it; a different classification here would be a defect of one of them
        }
        NdMessage message;
        try {
            message = NdCodec.decode(buf, off, length);
        } catch (DecodeException e) {
            nd.counters.malformed.increment(link.name());
            String line = LogLines.limit(malformedLog, "malformed Neighbor Discovery packet on " + link.name()
                    + " from QPN " + String.format("0x%06x", frame.sourceQpn()) + ": " + e.getMessage());
            if (line != null) {
                reporter.debug(line);
            }
            return;
        }
        switch (message) {
            case NeighborSolicitation ns -> messages.solicitation(link, ns);
            case NeighborAdvertisement na -> messages.advertisement(link, na);
            case RouterAdvertisement ra -> {
                nd.counters.raIn.increment(link.name());
                nd.run(() -> routers.advertisement(link, ra));
            }
            case RouterSolicitation rs -> nd.counters.ignored.increment(link.name());
            case Redirect r -> nd.counters.ignored.increment(link.name());
        }
    }

    // ---- NeighbourResolver ------------------------------------------------------------------------------

    private static Inet6Address ipv6(InetAddress address) {
        if (!(address instanceof Inet6Address a)) {
            throw new IllegalArgumentException("the ND resolver resolves IPv6 addresses, not "
                    + (address == null ? "null" : AddressBits.text(address)));
        }
        return a;
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress nextHop, int etherType, MemorySegment packet) {
        Inet6Address a = ipv6(nextHop);
        return neighbours.send(link, AddressBits.high(a), AddressBits.low(a), etherType, packet);
    }

    @Override
    public PathInfoAnswer pathInfo(String linkName, InetAddress destination) {
        Inet6Address a = ipv6(destination);
        IpoibLink link = nd.links.get(linkName);
        if (link == null) {
            return new PathInfoAnswer.NoSuchNode("no interface '" + linkName + "'");
        }
        return neighbours.pathInfo(link, AddressBits.high(a), AddressBits.low(a));
    }

    @Override
    public void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress) {
        Inet6Address a = ipv6(address);
        nd.links.require(linkName);
        if (a.isMulticastAddress()) {
            throw new IllegalArgumentException(AddressBits.text(a) + " is a multicast address: it has no neighbour entry");
        }
        ResolverLinks.requireUnicast(linkAddress);
        neighbours.addPermanent(linkName, AddressBits.high(a), AddressBits.low(a), linkAddress);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        Inet6Address a = ipv6(address);
        return neighbours.remove(linkName, AddressBits.high(a), AddressBits.low(a));
    }

    /** The link's MTU, or the smaller MTU a router advertised (RFC 4861 §6.3.4). */
    @Override
    public int linkMtu(String linkName) {
        IpoibLink link = nd.links.get(linkName);
        if (link == null || link.state() != LinkState.UP) {
            return 0;
        }
        LinkNd state = nd.state.get(linkName);
        int ra = state == null ? 0 : state.raMtu;
        return ra > 0 ? Math.min(ra, link.mtu()) : link.mtu();
    }

    @Override
    protected NeighbourEngine engine() {
        return neighbours;
    }
}
