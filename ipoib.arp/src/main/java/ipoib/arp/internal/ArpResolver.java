package ipoib.arp.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressListener;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.codec.DecodeException;
import ipoib.codec.arp.ArpCodec;
import ipoib.codec.arp.ArpOperation;
import ipoib.codec.arp.ArpPacket;
import ipoib.codec.ip.Ipv4Header;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.Counters;
import ipoib.neighbour.EngineResolver;
import ipoib.neighbour.NeighbourEngine;
import ipoib.neighbour.Protocol;
import ipoib.neighbour.LogLines;
import ipoib.runtime.RateLimiter;
import ipoib.neighbour.ResolverShell;
import ipoib.neighbour.Route;
import ipoib.neighbour.Settings;
import java.lang.foreign.MemorySegment;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * ARP over IPoIB (RFC 4391 §9.2, RFC 826): requests go to the link's broadcast group, replies
 * unicast to the requester's QPN (through the requester's neighbour entry, whose path is looked
 * up first). A packet merges its sender into an existing entry, and creates one when it is
 * meant for us (RFC 826's algorithm). Gratuitous ARP announces an address when it is added and
 * when its interface comes up. Only addresses of the interface the packet arrived on are
 * answered for, so that two interfaces of this host on one IPoIB link stay distinct.
 */
@Component(configurationPid = ArpResolver.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {NeighbourResolver.class, FrameHandler.class, LinkListener.class, AddressListener.class},
        property = {NeighbourResolver.FAMILY_PROPERTY + "=" + NeighbourResolver.IPV4,
                FrameHandler.ETHERTYPE_PROPERTY + ":Integer=" + EtherType.ARP})
@Designate(ocd = ArpConfiguration.class)
public final class ArpResolver extends EngineResolver implements FrameHandler, LinkListener, AddressListener, Protocol {

    /** Configuration PID. */
    public static final String PID = "ipoib.arp";

    private final Logger log;
    private final ResolverShell shell;
    /** Every property against its range, type and options as declared once in {@link ArpConfiguration}. */
    private static final ConfigCheck CHECK = ConfigCheck.of(ArpConfiguration.class);
    private final Counters counters = new Counters();
    private final NeighbourEngine engine;
    private final RateLimiter malformedLog = new RateLimiter(ipoib.runtime.Clock.SYSTEM, 10, java.util.concurrent.TimeUnit.SECONDS);
    private final RateLimiter conflictLog = new RateLimiter(ipoib.runtime.Clock.SYSTEM, 10, java.util.concurrent.TimeUnit.SECONDS);
    private volatile InterfaceAddresses addresses;
    private volatile boolean gratuitous;

    private final LongAdder requestsIn = counters.counter("requests_received");
    private final LongAdder repliesIn = counters.counter("replies_received");
    private final LongAdder requestsOut = counters.counter("requests_sent");
    private final LongAdder repliesOut = counters.counter("replies_sent");
    private final LongAdder gratuitousOut = counters.counter("gratuitous_sent");
    private final LongAdder announcementsIn = counters.counter("announcements_heard");
    private final LongAdder malformed = counters.counter("rx_malformed");
    private final LongAdder ignored = counters.counter("rx_ignored");
    private final LongAdder conflicts = counters.counter("address_conflicts");

    @Activate
    public ArpResolver(ArpConfiguration configuration, Map<String, Object> properties,
                       @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        Settings settings = ResolverShell.activation(log, () -> {
            CHECK.check(properties);
            return settings(configuration);
        });
        this.gratuitous = configuration.gratuitous();
        this.shell = new ResolverShell("ARP", "ipoib-arp", log);
        this.engine = new NeighbourEngine(false, this, settings, shell, counters, shell.control()::execute,
                shell.control().clock()::nanoTime);
        shell.start(engine, settings.tickMillis(), engine::tick);
    }

    static Settings settings(ArpConfiguration c) {
        return Settings.of(c.retransmitMillis(), c.requests(), c.unicastProbes(), c.queueLength(),
                c.maxEntries(), c.revalidateMillis(), c.idleMillis(), c.failedHoldMillis(), c.pathTimeoutMillis(),
                c.serviceLevel());
    }

    @Modified
    void modified(ArpConfiguration configuration, Map<String, Object> properties) {
        Settings settings = shell.modification(() -> {
            CHECK.check(properties);
            return settings(configuration);
        });
        if (settings == null) {
            return;
        }
        engine.settings(settings);
        gratuitous = configuration.gratuitous();
        shell.tickMillis(settings.tickMillis());
    }

    @Deactivate
    void deactivate() {
        shell.close();
    }

    // ---- references ---------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        if (shell.addLink(link)) {
            announceAll(link);
        }
    }

    void removeLink(IpoibLink link) {
        shell.removeLink(link);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setAddresses(InterfaceAddresses table) {
        this.addresses = table;
        for (IpoibLink link : shell.links()) {
            if (link.state() == LinkState.UP) {
                announceAll(link);
            }
        }
    }

    void unsetAddresses(InterfaceAddresses table) {
        if (this.addresses == table) {
            this.addresses = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setEventAdmin(EventAdmin admin) {
        shell.setEventAdmin(admin);
    }

    void unsetEventAdmin(EventAdmin admin) {
        shell.unsetEventAdmin(admin);
    }

    // ---- link and address events ----------------------------------------------------------------------

    @Override
    public void linkChanged(IpoibLink link, LinkListener.Change change) {
        switch (change) {
            case UP -> {
                shell.linkUp(link);
                announceAll(link);
            }
            case DOWN -> engine.linkDown(link);
            case PATHS_STALE -> {
                // The link refreshes its own paths; the neighbours learn that their paths to us may
                // have changed (our LID, a new SM) from a gratuitous ARP, and query them again.
                announceAll(link);
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
            IpoibLink link = shell.link(address.link());
            if (link != null && link.state() == LinkState.UP) {
                int ip = AddressBits.ipv4(address.address());
                run(() -> announce(link, ip));
            }
        }
    }

    private void announceAll(IpoibLink link) {
        run(() -> {
            for (InterfaceAddress a : usable(link)) {
                announce(link, AddressBits.ipv4(a.address()));
            }
        });
    }

    /** A gratuitous ARP request (sender and target protocol address both ours), to the broadcast group. */
    private void announce(IpoibLink link, int ip) {
        LinkAddress self = link.address();
        if (!gratuitous || self == null) {
            return;
        }
        ArpPacket packet = new ArpPacket(ArpOperation.REQUEST, self, ip, ArpPacket.UNKNOWN_HARDWARE_ADDRESS, ip);
        if (!link.sendBroadcast(EtherType.ARP, encode(packet)).isDrop()) {
            gratuitousOut.increment();
        }
    }

    private void run(Runnable task) {
        shell.run(task);
    }

    // ---- addresses ----------------------------------------------------------------------------------

    /** The usable IPv4 addresses of a link. */
    private List<InterfaceAddress> usable(IpoibLink link) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return List.of();
        }
        return table.addresses(link.name()).stream().filter(a -> !a.ipv6() && a.state().usable()).toList();
    }

    private static boolean contains(List<InterfaceAddress> list, int ip) {
        for (InterfaceAddress a : list) {
            if (AddressBits.ipv4(a.address()) == ip) {
                return true;
            }
        }
        return false;
    }

    /** The source of a request for {@code target}: an address whose prefix holds it, else the first; 0 when none. */
    private int source(List<InterfaceAddress> mine, int target) {
        InetAddress t = AddressBits.ipv4(target);
        for (InterfaceAddress a : mine) {
            if (a.contains(t)) {
                return AddressBits.ipv4(a.address());
            }
        }
        return mine.isEmpty() ? 0 : AddressBits.ipv4(mine.get(0).address());
    }

    // ---- Protocol (engine callbacks) --------------------------------------------------------------------

    @Override
    public String solicit(IpoibLink link, long high, long low, Route unicast) {
        int target = (int) low;
        LinkAddress self = link.address();
        if (self == null) {
            return "interface " + link.name() + " is not UP";
        }
        int source = source(usable(link), target);
        if (source == 0) {
            return "no IPv4 address on " + link.name() + " to send ARP requests from";
        }
        MemorySegment packet = encode(ArpPacket.request(self, source, target));
        TransmitResult result = unicast == null ? link.sendBroadcast(EtherType.ARP, packet)
                : link.sendUnicast(unicast.path(), unicast.qpn(), EtherType.ARP, packet);
        if (!result.isDrop()) {
            requestsOut.increment();
        }
        // A request the link dropped is retransmitted like a lost one.
        return null;
    }

    @Override
    public String notANeighbour(String linkName, long high, long low) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return null;
        }
        java.net.InetAddress a = AddressBits.address(false, high, low);
        for (var mine : table.addresses(linkName)) {
            if (mine.address().equals(a)) {
                return "it is an address of interface " + mine.link() + " itself";
            }
        }
        return null;
    }

    @Override
    public String cannotResolve(IpoibLink link, long high, long low) {
        if (addresses == null) {
            return "no interface addresses (the host layer is not running)";
        }
        if (usable(link).isEmpty()) {
            return "no IPv4 address on " + link.name();
        }
        return null;
    }

    private static MemorySegment encode(ArpPacket packet) {
        MemorySegment segment = MemorySegment.ofArray(new byte[ArpCodec.LENGTH]);
        ArpCodec.encode(segment, 0, packet);
        return segment;
    }

    // ---- receive --------------------------------------------------------------------------------------

    @Override
    public void onFrame(IpoibLink link, ReceivedFrame frame) {
        ArpPacket packet;
        try {
            packet = ArpCodec.decode(frame.buffer().asSlice(frame.payloadOffset(), frame.payloadLength()), 0,
                    frame.etherType());
        } catch (DecodeException e) {
            malformed.increment();
            String line = LogLines.limit(malformedLog, "malformed ARP packet on " + link.name() + " from QPN "
                    + String.format("0x%06x", frame.sourceQpn()) + ": " + e.getMessage());
            if (line != null) {
                log.debug(line);
            }
            return;
        }
        LinkAddress self = link.address();
        if (self == null || (packet.operation() != ArpOperation.REQUEST && packet.operation() != ArpOperation.REPLY)) {
            ignored.increment();
            return;
        }
        LinkAddress sender = packet.senderHardwareAddress().withoutFlags();
        if (sender.isMulticast() || sender.gid().isMulticast() || sender.equals(self.withoutFlags())) {
            ignored.increment();
            return;
        }
        if (packet.operation() == ArpOperation.REPLY) {
            repliesIn.increment();
        } else {
            requestsIn.increment();
        }
        int spa = packet.senderProtocolAddress();
        int tpa = packet.targetProtocolAddress();
        List<InterfaceAddress> mine = usable(link);
        if (spa == 0) {
            // An address probe (RFC 5227): nothing to learn.
            ignored.increment();
            return;
        }
        if (contains(mine, spa)) {
            conflicts.increment();
            String line = LogLines.limit(conflictLog, "address conflict on " + link.name() + ": " + Ipv4Header.text(spa)
                    + " is ours, but " + sender + " claims it");
            if (line != null) {
                log.warn(line);
            }
            return;
        }
        boolean forMe = contains(mine, tpa);
        long key = spa & 0xFFFF_FFFFL;
        // With its capability flags: the table keys on the address without them, the route carries them.
        engine.learn(link, 0, key, packet.senderHardwareAddress(), forMe, forMe && packet.operation() == ArpOperation.REPLY);
        if (spa == tpa && engine.announced(link, 0, key)) {
            announcementsIn.increment(); // a gratuitous ARP: the sender's path may have changed
        }
        if (forMe && packet.operation() == ArpOperation.REQUEST) {
            TransmitResult result = engine.send(link, 0, key, EtherType.ARP, encode(ArpPacket.replyTo(packet, self)));
            if (!result.isDrop()) {
                repliesOut.increment();
            }
        }
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
        IpoibLink link = shell.link(linkName);
        if (link == null) {
            return new PathInfoAnswer.NoSuchNode("no interface '" + linkName + "'");
        }
        return engine.pathInfo(link, 0, ipv4(destination) & 0xFFFF_FFFFL);
    }

    @Override
    public void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress) {
        int ip = ipv4(address);
        shell.requireLink(linkName);
        ResolverShell.requireUnicast(linkAddress);
        engine.addPermanent(linkName, 0, ip & 0xFFFF_FFFFL, linkAddress);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        return engine.remove(linkName, 0, ipv4(address) & 0xFFFF_FFFFL);
    }

    @Override
    public int linkMtu(String linkName) {
        return shell.upMtu(linkName);
    }

    @Override
    protected NeighbourEngine engine() {
        return engine;
    }
}
