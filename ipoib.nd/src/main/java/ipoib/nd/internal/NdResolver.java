package ipoib.nd.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.codec.DecodeException;
import ipoib.codec.nd.InterfaceIdentifiers;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.codec.nd.NeighborAdvertisement;
import ipoib.codec.nd.NeighborSolicitation;
import ipoib.codec.nd.PrefixInformation;
import ipoib.codec.nd.Redirect;
import ipoib.codec.nd.RouterAdvertisement;
import ipoib.codec.nd.RouterSolicitation;
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
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
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
 * IPv6 Neighbor Discovery over IPoIB (RFC 4861 with the 24-octet link-layer address options of
 * RFC 4391 §9.3) and address autoconfiguration (RFC 4862):
 *
 * <ul>
 * <li>each interface gets its link-local address from the port GUID with the u-bit rule of
 *     RFC 4391 §8, or from its LID when configured;
 * <li>the all-nodes group and the solicited-node group of each address are joined through the
 *     {@link MulticastService} (as listener joins, which make the port a FullMember);
 * <li>every new address, and every address of an interface that comes up, is tentative until
 *     duplicate address detection passes; a Neighbor Advertisement for it, or another node's
 *     probe, marks it DUPLICATE;
 * <li>Neighbor Solicitations resolve neighbours through the shared path-record state machine;
 * <li>Router Solicitations are sent once the link-local address is usable; Router Advertisement
 *     prefixes with the A flag form addresses (SLAAC), and an MTU option larger than the link
 *     MTU is ignored and logged (the IPoIB link MTU is the broadcast group's).
 * </ul>
 *
 * <p>Control-plane work runs on one thread ({@code ipoib-nd}); frames arrive on the links'
 * receive threads and are answered there when that needs no state of this component.
 *
 * <p>Size (~1 000 lines, not split yet — issue 11 asks for it): NS/NA, DAD, RS/RA/SLAAC, group
 * memberships, link-local addresses and the DS wiring. The receive entry is the one method
 * {@link #onFrame}, so that the host can hand it ND message types. Next split: DAD and router
 * discovery into their own classes.
 */
@Component(configurationPid = NdResolver.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {NeighbourResolver.class, NeighborDiscoveryReceiver.class, LinkListener.class, AddressListener.class},
        property = NeighbourResolver.FAMILY_PROPERTY + "=" + NeighbourResolver.IPV6)
@Designate(ocd = NdConfiguration.class)
public final class NdResolver extends EngineResolver implements NeighborDiscoveryReceiver, LinkListener, AddressListener,
        Protocol {

    /** Configuration PID. */
    public static final String PID = "ipoib.nd";
    static final Inet6Address ALL_NODES = AddressBits.ipv6(0xFF02_0000_0000_0000L, 1);
    static final Inet6Address ALL_ROUTERS = AddressBits.ipv6(0xFF02_0000_0000_0000L, 2);
    private static final int MIN_IPV6_MTU = 1280;
    private static final long MEMBERSHIP_TIMEOUT_MILLIS = 10_000;

    /** The ND-specific knobs. */
    record Options(boolean lidIdentifier, boolean linkLocal, int dadTransmits, int routerSolicitations,
                   long routerSolicitationIntervalMillis, boolean autoconf) {

        static Options of(NdConfiguration c) {
            return new Options(
                    "lid".equals(c.interfaceIdentifier().strip()),
                    c.linkLocal(),
                    c.dadTransmits(),
                    c.routerSolicitations(),
                    c.routerSolicitationIntervalMillis(),
                    c.autoconf());
        }
    }

    /** What ND keeps of one link (control thread, except {@link #raMtu}). */
    static final class LinkNd {
        volatile int raMtu;
        final Set<InetAddress> joined = new HashSet<>();
        int routerSolicitationsLeft;
        long nextRouterSolicitation;
        boolean routerAdvertisementSeen;
        final Map<InetAddress, Long> routers = new HashMap<>();
        int curHopLimit;
    }

    /** Duplicate address detection of one tentative address (control thread). */
    static final class Dad {
        final String link;
        final Inet6Address address;
        int sent;
        long next;
        boolean ready;

        Dad(String link, Inet6Address address) {
            this.link = link;
            this.address = address;
        }
    }

    private final Logger log;
    private final ResolverShell shell;
    /** Every property against its range, type and options as declared once in {@link NdConfiguration}. */
    private static final ConfigCheck CHECK = ConfigCheck.of(NdConfiguration.class);
    private final Counters counters = new Counters();
    private final NeighbourEngine engine;
    private final Map<String, LinkNd> state = new ConcurrentHashMap<>();
    private final Map<String, Dad> dads = new HashMap<>();
    private final RateLimiter malformedLog = new RateLimiter(ipoib.runtime.Clock.SYSTEM, 10, java.util.concurrent.TimeUnit.SECONDS);
    private final RateLimiter conflictLog = new RateLimiter(ipoib.runtime.Clock.SYSTEM, 10, java.util.concurrent.TimeUnit.SECONDS);
    private volatile InterfaceAddresses addresses;
    private volatile MulticastService multicast;
    private volatile Options options;

    private final LongAdder nsIn = counters.counter("solicitations_received");
    private final LongAdder naIn = counters.counter("advertisements_received");
    private final LongAdder nsOut = counters.counter("ns_sent");
    private final LongAdder naOut = counters.counter("na_sent");
    private final LongAdder announcementsIn = counters.counter("announcements_heard");
    private final LongAdder dadProbes = counters.counter("dad_probes_sent");
    private final LongAdder dadDuplicates = counters.counter("dad_duplicates");
    private final LongAdder dadPassed = counters.counter("dad_passed");
    private final LongAdder rsOut = counters.counter("router_solicitations_sent");
    private final LongAdder raIn = counters.counter("router_advertisements_received");
    private final LongAdder raMtuApplied = counters.counter("ra_mtu_applied");
    private final LongAdder raMtuIgnored = counters.counter("ra_mtu_ignored");
    private final LongAdder autoconfigured = counters.counter("addresses_autoconfigured");
    private final LongAdder malformed = counters.counter("rx_malformed");
    private final LongAdder ignored = counters.counter("rx_ignored");
    private final LongAdder noMulticast = counters.counter("dropped_no_multicast_service");
    private final LongAdder conflicts = counters.counter("address_conflicts");

    @Activate
    public NdResolver(NdConfiguration configuration, Map<String, Object> properties,
                      @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        Checked checked = ResolverShell.activation(log, () -> {
            CHECK.check(properties);
            return Checked.of(configuration);
        });
        this.options = checked.options();
        this.shell = new ResolverShell("ND", "ipoib-nd", log);
        this.engine = new NeighbourEngine(true, this, checked.settings(), shell, counters, shell.control()::execute,
                shell.control().clock()::nanoTime);
        shell.start(engine, checked.settings().tickMillis(), () -> {
            engine.tick();
            tick();
        });
    }

    /** A checked configuration. */
    private record Checked(Settings settings, Options options) {

        static Checked of(NdConfiguration configuration) {
            return new Checked(NdResolver.settings(configuration), Options.of(configuration));
        }
    }

    static Settings settings(NdConfiguration c) {
        return Settings.of(c.retransmitMillis(), c.requests(), c.unicastProbes(), c.queueLength(),
                c.maxEntries(), c.revalidateMillis(), c.idleMillis(), c.failedHoldMillis(), c.pathTimeoutMillis(),
                c.serviceLevel());
    }

    @Modified
    void modified(NdConfiguration configuration, Map<String, Object> properties) {
        Checked checked = shell.modification(() -> {
            CHECK.check(properties);
            return Checked.of(configuration);
        });
        if (checked == null) {
            return;
        }
        engine.settings(checked.settings());
        Options before = options;
        options = checked.options();
        shell.tickMillis(checked.settings().tickMillis());
        if (before.lidIdentifier() != options.lidIdentifier() || before.linkLocal() != options.linkLocal()) {
            // Issue 12 item 5: applied live; linkUp removes the link-local address of the old
            // identifier and adds the new one, which goes through DAD.
            for (IpoibLink link : shell.links()) {
                run(() -> linkUp(link, false));
            }
        }
    }

    @Deactivate
    void deactivate() {
        // Leave the groups joined for this component, so that the multicast manager's listener
        // counts stay right across an update of this bundle.
        try {
            shell.control().run(() -> {
                MulticastService m = multicast;
                state.forEach((name, nd) -> {
                    if (m != null) {
                        for (InetAddress g : nd.joined) {
                            leave(m, name, g);
                        }
                    }
                    nd.joined.clear();
                });
            }, 2, TimeUnit.SECONDS);
        } catch (Exception e) {
            log.debug("leaving the ND groups on deactivation: " + e);
        }
        shell.close();
    }

    private void run(Runnable task) {
        shell.run(task);
    }

    // ---- references ---------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        if (shell.addLink(link)) {
            run(() -> linkUp(link, false));
        }
    }

    void removeLink(IpoibLink link) {
        shell.removeLink(link);
        run(() -> {
            // The multicast manager keeps an interface's listeners across a re-registration of its
            // service: leave ours, the next service of the name is joined anew by linkUp.
            LinkNd nd = state.remove(link.name());
            MulticastService m = multicast;
            if (nd != null && m != null) {
                for (InetAddress g : nd.joined) {
                    leave(m, link.name(), g);
                }
            }
            dads.values().removeIf(d -> d.link.equals(link.name()));
        });
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setAddresses(InterfaceAddresses table) {
        this.addresses = table;
        run(this::resume);
    }

    void unsetAddresses(InterfaceAddresses table) {
        if (this.addresses == table) {
            this.addresses = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setMulticast(MulticastService service) {
        this.multicast = service;
        run(() -> {
            // A new multicast manager knows none of our joins.
            state.values().forEach(nd -> nd.joined.clear());
            resume();
        });
    }

    void unsetMulticast(MulticastService service) {
        if (this.multicast == service) {
            this.multicast = null;
            run(() -> state.values().forEach(nd -> nd.joined.clear()));
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

    /** After a service came (back): the UP links' joins, link-local addresses and pending DADs. */
    private void resume() {
        for (IpoibLink link : shell.links()) {
            if (link.state() == LinkState.UP) {
                linkUp(link, false);
            }
        }
    }

    // ---- link and address events ----------------------------------------------------------------------

    @Override
    public void linkChanged(IpoibLink link, LinkListener.Change change) {
        switch (change) {
            case UP -> {
                shell.linkUp(link);
                run(() -> linkUp(link, true));
            }
            case DOWN -> {
                engine.linkDown(link);
                run(() -> linkDown(link));
            }
            case PATHS_STALE -> {
                // The link refreshes its own paths; the neighbours learn that their paths to us may
                // have changed (our LID, a new SM) from unsolicited advertisements, and query them again.
                run(() -> advertiseAll(link));
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
        IpoibLink link = shell.link(address.link());
        if (link == null) {
            return;
        }
        Inet6Address a = (Inet6Address) address.address();
        switch (change) {
            case ADDED, STATE -> {
                if (address.state() == AddressState.TENTATIVE) {
                    run(() -> startDad(link, a));
                } else if (address.state() == AddressState.DUPLICATE) {
                    run(() -> joins(link));
                }
            }
            case REMOVED -> run(() -> {
                dads.remove(key(link.name(), a));
                joins(link);
            });
            case UPDATED -> {
                // Lifetimes only.
            }
        }
    }

    /**
     * The link is UP: join all-nodes, make sure of the link-local address, and run DAD. A
     * {@code fresh} UP (the interface came up) tests every address again (RFC 4862 §5.4); when
     * this component merely (re)started, usable addresses stay as they are.
     */
    private void linkUp(IpoibLink link, boolean fresh) {
        if (link.state() != LinkState.UP) {
            return;
        }
        LinkNd nd = state.computeIfAbsent(link.name(), k -> new LinkNd());
        if (fresh) {
            nd.raMtu = 0;
            nd.routers.clear();
            nd.routerAdvertisementSeen = false;
        }
        InterfaceAddresses table = addresses;
        if (table == null) {
            return;
        }
        joins(link);
        Inet6Address linkLocal = linkLocalAddress(link);
        for (InterfaceAddress a : table.addresses(link.name())) {
            // A link-local address of another identifier (the configuration changed) goes.
            if (a.origin() == AddressOrigin.LINK_LOCAL && !a.address().equals(linkLocal)) {
                table.remove(link.name(), a.address());
            }
        }
        if (linkLocal != null && find(link, linkLocal) == null) {
            table.add(link.name(), linkLocal, 64, AddressOrigin.LINK_LOCAL, null);
        }
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (!a.ipv6()) {
                continue;
            }
            if (a.state() == AddressState.TENTATIVE) {
                startDad(link, (Inet6Address) a.address());
            } else if (fresh && a.state() != AddressState.DUPLICATE) {
                table.setState(link.name(), a.address(), AddressState.TENTATIVE);
            } else if (!fresh && a.origin() == AddressOrigin.LINK_LOCAL && a.state().usable()) {
                startRouterSolicitation(link);
            }
        }
    }

    private void linkDown(IpoibLink link) {
        dads.values().removeIf(d -> d.link.equals(link.name()));
        LinkNd nd = state.get(link.name());
        if (nd != null) {
            nd.raMtu = 0;
            nd.routerSolicitationsLeft = 0;
        }
    }

    /** The link-local address of RFC 4391 §8.1, or null when it is off or cannot be formed. */
    private Inet6Address linkLocalAddress(IpoibLink link) {
        Options o = options;
        if (!o.linkLocal() || link.gid() == null) {
            return null;
        }
        try {
            long id = o.lidIdentifier()
                    ? InterfaceIdentifiers.fromLid(link.port().attributes().lid())
                    : InterfaceIdentifiers.fromGuid(link.gid().guid());
            return InterfaceIdentifiers.linkLocal(id);
        } catch (RuntimeException e) {
            log.warn("no link-local address for " + link.name() + ": " + e.getMessage());
            return null;
        }
    }

    private long interfaceIdentifier(IpoibLink link) {
        Inet6Address ll = linkLocalAddress(link);
        return ll == null ? InterfaceIdentifiers.fromGuid(link.gid().guid()) : AddressBits.low(ll);
    }

    // ---- multicast membership (control thread) -----------------------------------------------------------

    /** Joins all-nodes and the solicited-node groups of the link's addresses; leaves the others. */
    private void joins(IpoibLink link) {
        MulticastService m = multicast;
        InterfaceAddresses table = addresses;
        LinkNd nd = state.get(link.name());
        if (m == null || table == null || nd == null || link.state() != LinkState.UP) {
            return;
        }
        Set<InetAddress> needed = new LinkedHashSet<>();
        needed.add(ALL_NODES);
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.ipv6() && a.state() != AddressState.DUPLICATE) {
                needed.add(InterfaceIdentifiers.solicitedNodeMulticast((Inet6Address) a.address()));
            }
        }
        for (InetAddress g : needed) {
            if (nd.joined.add(g)) {
                m.joinListener(link.name(), g).whenComplete((info, failure) -> {
                    if (failure != null) {
                        log.warn("ND could not join " + AddressBits.text(g) + " on " + link.name() + ": "
                                + failure.getMessage());
                        run(() -> nd.joined.remove(g));
                    }
                });
            }
        }
        for (InetAddress g : new ArrayList<>(nd.joined)) {
            if (!needed.contains(g)) {
                nd.joined.remove(g);
                leave(m, link.name(), g);
            }
        }
    }

    private void leave(MulticastService m, String link, InetAddress group) {
        try {
            m.leaveListener(link, group);
        } catch (RuntimeException e) {
            log.debug("leaving " + AddressBits.text(group) + " on " + link + ": " + e.getMessage());
        }
    }

    /**
     * Completes when the port is a FullMember of every group: a second listener join whose
     * stage says so, then its leave (ND's own listener stays).
     */
    private CompletableFuture<Void> membership(MulticastService m, IpoibLink link, List<InetAddress> groups) {
        List<CompletableFuture<?>> stages = new ArrayList<>();
        for (InetAddress g : groups) {
            CompletionStage<?> joined;
            try {
                joined = m.joinListener(link.name(), g);
            } catch (RuntimeException e) {
                return CompletableFuture.failedFuture(e);
            }
            stages.add(joined.toCompletableFuture().whenComplete((info, failure) -> leave(m, link.name(), g)));
        }
        return CompletableFuture.allOf(stages.toArray(new CompletableFuture<?>[0]))
                .orTimeout(MEMBERSHIP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    // ---- duplicate address detection (control thread) ---------------------------------------------------

    private static String key(String link, InetAddress a) {
        return link + " " + AddressBits.text(a);
    }

    private void startDad(IpoibLink link, Inet6Address address) {
        InterfaceAddress current = find(link, address);
        if (current == null || current.state() != AddressState.TENTATIVE || link.state() != LinkState.UP
                || !state.containsKey(link.name())) {
            return;
        }
        String key = key(link.name(), address);
        if (dads.containsKey(key)) {
            return;
        }
        if (options.dadTransmits() == 0) {
            passed(link, address);
            return;
        }
        MulticastService m = multicast;
        if (m == null) {
            noMulticast.increment();
            log.info("DAD of " + AddressBits.text(address) + " on " + link.name()
                    + " waits for the multicast service (ipoib.mcast): the address stays TENTATIVE");
            return;
        }
        Dad dad = new Dad(link.name(), address);
        dads.put(key, dad);
        joins(link);
        membership(m, link, List.of(ALL_NODES, InterfaceIdentifiers.solicitedNodeMulticast(address)))
                .whenComplete((ok, failure) -> run(() -> {
                    if (dads.get(key) != dad) {
                        return;
                    }
                    if (failure != null) {
                        dads.remove(key);
                        log.warn("DAD of " + AddressBits.text(address) + " on " + link.name()
                                + " could not join its groups: " + failure + "; trying again when the link or the "
                                + "multicast service comes back");
                        return;
                    }
                    dad.ready = true;
                    dad.next = System.nanoTime();
                    dadStep(dad);
                }));
    }

    private void dadStep(Dad dad) {
        IpoibLink link = shell.link(dad.link);
        if (link == null || link.state() != LinkState.UP) {
            dads.remove(key(dad.link, dad.address));
            return;
        }
        long now = System.nanoTime();
        if (!dad.ready || now - dad.next < 0) {
            return;
        }
        long retransmit = engine.settings().retransmitMillis() * 1_000_000L;
        if (dad.sent < options.dadTransmits()) {
            MulticastService m = multicast;
            NeighborSolicitation probe = NeighborSolicitation.duplicateAddressDetection(dad.address);
            if (m != null && !m.send(link, probe.destination(), EtherType.IPV6, encode(probe)).isDrop()) {
                dadProbes.increment();
            }
            dad.sent++;
            dad.next = now + retransmit;
            return;
        }
        dads.remove(key(dad.link, dad.address));
        passed(link, dad.address);
    }

    private void passed(IpoibLink link, Inet6Address address) {
        InterfaceAddresses table = addresses;
        InterfaceAddress a = find(link, address);
        if (table == null || a == null || a.state() != AddressState.TENTATIVE) {
            return;
        }
        dadPassed.increment();
        table.setState(link.name(), address, AddressState.PREFERRED);
        log.info(AddressBits.text(address) + " on " + link.name() + " passed duplicate address detection");
        advertiseUnsolicited(link, address);
        if (a.origin() == AddressOrigin.LINK_LOCAL) {
            startRouterSolicitation(link);
        }
    }

    /**
     * Unsolicited advertisement (RFC 4861 §7.2.6): neighbours with a stale entry (our QPN changes
     * with every reset, RFC 4391 §9.4; our LID with a port event) learn the new address and query
     * the path to us again at once.
     */
    private void advertiseUnsolicited(IpoibLink link, Inet6Address address) {
        LinkAddress self = link.address();
        MulticastService m = multicast;
        if (self != null && m != null) {
            NeighborAdvertisement na = new NeighborAdvertisement(address, ALL_NODES, false, false, true, address,
                    Optional.of(self));
            if (!m.send(link, ALL_NODES, EtherType.IPV6, encode(na)).isDrop()) {
                naOut.increment();
            }
        }
    }

    /** Advertises every usable (not tentative, not duplicate) address of a link. Control thread. */
    private void advertiseAll(IpoibLink link) {
        InterfaceAddresses table = addresses;
        if (table == null || link.state() != LinkState.UP) {
            return;
        }
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.ipv6() && a.state().usable() && a.address() instanceof Inet6Address v6) {
                advertiseUnsolicited(link, v6);
            }
        }
    }

    private void duplicate(IpoibLink link, Inet6Address address, String evidence) {
        InterfaceAddress a = find(link, address);
        if (a == null || a.state() != AddressState.TENTATIVE) {
            return;
        }
        dads.remove(key(link.name(), address));
        dadDuplicates.increment();
        log.warn("duplicate address detected: " + AddressBits.text(address) + " on " + link.name() + " is in use by "
                + evidence + "; the address is not used (RFC 4862 §5.4.5)");
        addresses.setState(link.name(), address, AddressState.DUPLICATE);
        joins(link);
    }

    // ---- router solicitation, timers (control thread) ---------------------------------------------------

    private void startRouterSolicitation(IpoibLink link) {
        LinkNd nd = state.get(link.name());
        if (nd != null && !nd.routerAdvertisementSeen && nd.routerSolicitationsLeft == 0) {
            nd.routerSolicitationsLeft = options.routerSolicitations();
            nd.nextRouterSolicitation = System.nanoTime();
        }
    }

    private long lastExpiry;

    private void tick() {
        long now = System.nanoTime();
        for (Dad dad : new ArrayList<>(dads.values())) {
            dadStep(dad);
        }
        for (Map.Entry<String, LinkNd> e : state.entrySet()) {
            LinkNd nd = e.getValue();
            IpoibLink link = shell.link(e.getKey());
            if (link == null || link.state() != LinkState.UP) {
                continue;
            }
            if (nd.routerSolicitationsLeft > 0 && !nd.routerAdvertisementSeen && now - nd.nextRouterSolicitation >= 0) {
                nd.routerSolicitationsLeft--;
                nd.nextRouterSolicitation = now + options.routerSolicitationIntervalMillis() * 1_000_000L;
                sendRouterSolicitation(link);
            }
            nd.routers.values().removeIf(expiry -> now - expiry >= 0);
        }
        if (now - lastExpiry >= 1_000_000_000L) {
            lastExpiry = now;
            expireAutoconfigured();
        }
    }

    private void sendRouterSolicitation(IpoibLink link) {
        MulticastService m = multicast;
        LinkAddress self = link.address();
        Inet6Address source = linkLocalAddress(link);
        InterfaceAddress usable = source == null ? null : find(link, source);
        if (m == null || self == null || usable == null || !usable.state().usable()) {
            return;
        }
        RouterSolicitation rs = new RouterSolicitation(source, ALL_ROUTERS, Optional.of(self));
        // Counted when handed over: with no router on the link the all-routers group does not
        // exist and the multicast manager drops it (RFC 4391 §10), counting it there.
        rsOut.increment();
        m.send(link, ALL_ROUTERS, EtherType.IPV6, encode(rs));
    }

    private void expireAutoconfigured() {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return;
        }
        Instant now = Instant.now();
        for (InterfaceAddress a : table.addresses(null)) {
            if (a.origin() == AddressOrigin.AUTOCONF && a.validUntil() != null && now.isAfter(a.validUntil())) {
                log.info(a.cidr() + " on " + a.link() + " expired (valid lifetime over)");
                table.remove(a.link(), a.address());
            }
        }
    }

    // ---- helpers ------------------------------------------------------------------------------------

    private InterfaceAddress find(IpoibLink link, InetAddress address) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return null;
        }
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (a.address().equals(address)) {
                return a;
            }
        }
        return null;
    }

    /** The source for a packet to {@code target}: a usable address of the same scope, in its prefix if possible. */
    private Inet6Address source(IpoibLink link, Inet6Address target) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return null;
        }
        InterfaceAddress best = null;
        int bestScore = -1;
        for (InterfaceAddress a : table.addresses(link.name())) {
            if (!a.ipv6() || !a.state().usable()) {
                continue;
            }
            int score = (a.contains(target) ? 4 : 0) + (a.address().isLinkLocalAddress() == target.isLinkLocalAddress() ? 2 : 0)
                    + (a.address().isLinkLocalAddress() ? 1 : 0);
            if (score > bestScore) {
                best = a;
                bestScore = score;
            }
        }
        return best == null ? null : (Inet6Address) best.address();
    }

    private static MemorySegment encode(NdMessage message) {
        MemorySegment segment = MemorySegment.ofArray(new byte[NdCodec.encodedLength(message)]);
        NdCodec.encode(segment, 0, message);
        return segment;
    }

    private static boolean unspecified(Inet6Address a) {
        return a.isAnyLocalAddress();
    }

    // ---- Protocol (engine callbacks) ------------------------------------------------------------------

    @Override
    public String solicit(IpoibLink link, long high, long low, Route unicast) {
        Inet6Address target = AddressBits.ipv6(high, low);
        LinkAddress self = link.address();
        if (self == null) {
            return "interface " + link.name() + " is not UP";
        }
        Inet6Address source = source(link, target);
        if (source == null) {
            return "no usable IPv6 address on " + link.name() + " to send Neighbor Solicitations from";
        }
        if (unicast != null) {
            NeighborSolicitation probe = new NeighborSolicitation(source, target, target, Optional.of(self));
            if (!link.sendUnicast(unicast.path(), unicast.qpn(), EtherType.IPV6, encode(probe)).isDrop()) {
                nsOut.increment();
            }
            return null;
        }
        MulticastService m = multicast;
        if (m == null) {
            noMulticast.increment();
            return "no multicast service (ipoib.mcast) to send Neighbor Solicitations to the solicited-node group";
        }
        NeighborSolicitation ns = NeighborSolicitation.resolve(source, target, self);
        if (!m.send(link, ns.destination(), EtherType.IPV6, encode(ns)).isDrop()) {
            nsOut.increment();
        }
        return null;
    }

    @Override
    public String notANeighbour(String linkName, long high, long low) {
        InterfaceAddresses table = addresses;
        if (table == null) {
            return null;
        }
        java.net.InetAddress a = AddressBits.address(true, high, low);
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
        if ((high >>> 56) == 0xFF) {
            return "a multicast address is not resolved";
        }
        if (source(link, AddressBits.ipv6(high, low)) == null) {
            return "no usable IPv6 address on " + link.name();
        }
        return null;
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
            malformed.increment();
            String line = LogLines.limit(malformedLog, "malformed Neighbor Discovery packet on " + link.name() + " from QPN "
                    + String.format("0x%06x", frame.sourceQpn()) + ": " + e.getMessage());
            if (line != null) {
                log.debug(line);
            }
            return;
        }
        switch (message) {
            case NeighborSolicitation ns -> solicitation(link, ns);
            case NeighborAdvertisement na -> advertisement(link, na);
            case RouterAdvertisement ra -> {
                raIn.increment();
                run(() -> routerAdvertisement(link, ra));
            }
            case RouterSolicitation rs -> ignored.increment();
            case Redirect r -> ignored.increment();
        }
    }

    private void solicitation(IpoibLink link, NeighborSolicitation ns) {
        nsIn.increment();
        Inet6Address target = ns.target();
        InterfaceAddress mine = find(link, target);
        if (mine == null || mine.state() == AddressState.DUPLICATE) {
            return;
        }
        boolean probe = unspecified(ns.source());
        if (mine.state() == AddressState.TENTATIVE) {
            if (probe) {
                run(() -> duplicate(link, target, "another node testing it at the same time"));
            }
            return;
        }
        LinkAddress self = link.address();
        if (self == null) {
            return;
        }
        NeighborAdvertisement na = NeighborAdvertisement.answer(ns, target, false, self);
        if (probe) {
            // Another node's DAD of our address: defend it to all-nodes (RFC 4861 §7.2.4).
            MulticastService m = multicast;
            if (m != null && !m.send(link, ALL_NODES, EtherType.IPV6, encode(na)).isDrop()) {
                naOut.increment();
            }
            return;
        }
        long high = AddressBits.high(ns.source());
        long low = AddressBits.low(ns.source());
        ns.sourceLinkAddress().ifPresent(sll -> engine.learn(link, high, low, sll, true, false));
        if (!engine.send(link, high, low, EtherType.IPV6, encode(na)).isDrop()) {
            naOut.increment();
        }
    }

    private void advertisement(IpoibLink link, NeighborAdvertisement na) {
        naIn.increment();
        Inet6Address target = na.target();
        InterfaceAddress mine = find(link, target);
        LinkAddress self = link.address();
        // A DUPLICATE address is not ours (RFC 4862 §5.4.5: it is not used): its owner's
        // advertisement is learnt like any other neighbour's.
        if (mine != null && mine.state() != AddressState.DUPLICATE) {
            String who = na.targetLinkAddress().map(LinkAddress::toString).orElse("a node that did not say");
            if (mine.state() == AddressState.TENTATIVE) {
                run(() -> duplicate(link, target, who));
            } else if (self != null && na.targetLinkAddress().isPresent()
                    && !na.targetLinkAddress().get().withoutFlags().equals(self.withoutFlags())) {
                conflicts.increment();
                String line = LogLines.limit(conflictLog, "address conflict on " + link.name() + ": " + AddressBits.text(target)
                        + " is ours, but " + who + " advertises it");
                if (line != null) {
                    log.warn(line);
                }
            }
            return;
        }
        na.targetLinkAddress().ifPresent(tll -> {
            engine.learn(link, AddressBits.high(target), AddressBits.low(target), tll, false, na.solicited(),
                    na.override());
            if (!na.solicited() && engine.announced(link, AddressBits.high(target), AddressBits.low(target))) {
                announcementsIn.increment(); // an unsolicited advertisement: the sender's path may have changed
            }
        });
    }

    /** RFC 4861 §6.3.4 for a host, with the RA MTU rule. Control thread. */
    private void routerAdvertisement(IpoibLink link, RouterAdvertisement ra) {
        LinkNd nd = state.get(link.name());
        if (nd == null || link.state() != LinkState.UP) {
            return;
        }
        nd.routerAdvertisementSeen = true;
        nd.routerSolicitationsLeft = 0;
        if (ra.curHopLimit() != 0) {
            nd.curHopLimit = ra.curHopLimit();
        }
        String from = AddressBits.text(ra.source());
        if (ra.mtu().isPresent()) {
            long mtu = ra.mtu().getAsLong();
            if (mtu > link.mtu()) {
                raMtuIgnored.increment();
                log.warn("Router Advertisement from " + from + " on " + link.name() + ": MTU option " + mtu
                        + " is larger than the link MTU " + link.mtu()
                        + " (the broadcast group's); ignored");
            } else if (mtu < MIN_IPV6_MTU) {
                raMtuIgnored.increment();
                log.warn("Router Advertisement from " + from + " on " + link.name() + ": MTU option " + mtu
                        + " is below IPv6's minimum of 1280; ignored");
            } else if (mtu != nd.raMtu) {
                raMtuApplied.increment();
                nd.raMtu = (int) mtu;
                log.info("Router Advertisement from " + from + " on " + link.name() + " sets the IPv6 MTU to " + mtu);
            }
        }
        ra.sourceLinkAddress().ifPresent(sll -> engine.learn(link, AddressBits.high(ra.source()),
                AddressBits.low(ra.source()), sll, true, false));
        if (ra.routerLifetime() > 0) {
            nd.routers.put(ra.source(), System.nanoTime() + ra.routerLifetime() * 1_000_000_000L);
        } else {
            nd.routers.remove(ra.source());
        }
        for (PrefixInformation p : ra.prefixes()) {
            autoconfigure(link, p, from);
        }
    }

    /** Stateless address autoconfiguration from one prefix (RFC 4862 §5.5.3). */
    private void autoconfigure(IpoibLink link, PrefixInformation p, String router) {
        InterfaceAddresses table = addresses;
        if (!options.autoconf() || !p.autonomous() || table == null || p.prefix().isLinkLocalAddress()) {
            return;
        }
        if (p.preferredLifetime() > p.validLifetime()) {
            log.debug("prefix " + AddressBits.text(p.prefix()) + "/" + p.prefixLength() + " from " + router
                    + ": preferred lifetime beyond the valid one; ignored (RFC 4862 §5.5.3 c)");
            return;
        }
        if (p.prefixLength() != 64) {
            log.warn("prefix " + AddressBits.text(p.prefix()) + "/" + p.prefixLength() + " from " + router + " on "
                    + link.name() + ": the interface identifier has 64 bits, the prefix must be /64; ignored");
            return;
        }
        Inet6Address address = InterfaceIdentifiers.address(AddressBits.high(p.prefix()), interfaceIdentifier(link));
        InterfaceAddress existing = find(link, address);
        if (p.validLifetime() == 0) {
            if (existing != null && existing.origin() == AddressOrigin.AUTOCONF) {
                table.remove(link.name(), address);
            }
            return;
        }
        if (existing != null && existing.origin() != AddressOrigin.AUTOCONF) {
            return;
        }
        Instant until = p.validLifetime() == PrefixInformation.INFINITE ? null
                : Instant.now().plusSeconds(p.validLifetime());
        if (existing == null) {
            autoconfigured.increment();
            log.info("autoconfigured " + AddressBits.text(address) + "/64 on " + link.name() + " from " + router);
        }
        table.add(link.name(), address, 64, AddressOrigin.AUTOCONF, until);
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
        return engine.send(link, AddressBits.high(a), AddressBits.low(a), etherType, packet);
    }

    @Override
    public PathInfoAnswer pathInfo(String linkName, InetAddress destination) {
        Inet6Address a = ipv6(destination);
        IpoibLink link = shell.link(linkName);
        if (link == null) {
            return new PathInfoAnswer.NoSuchNode("no interface '" + linkName + "'");
        }
        return engine.pathInfo(link, AddressBits.high(a), AddressBits.low(a));
    }

    @Override
    public void addPermanent(String linkName, InetAddress address, LinkAddress linkAddress) {
        Inet6Address a = ipv6(address);
        shell.requireLink(linkName);
        if (a.isMulticastAddress()) {
            throw new IllegalArgumentException(AddressBits.text(a) + " is a multicast address: it has no neighbour entry");
        }
        ResolverShell.requireUnicast(linkAddress);
        engine.addPermanent(linkName, AddressBits.high(a), AddressBits.low(a), linkAddress);
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        Inet6Address a = ipv6(address);
        return engine.remove(linkName, AddressBits.high(a), AddressBits.low(a));
    }

    @Override
    public int linkMtu(String linkName) {
        IpoibLink link = shell.link(linkName);
        if (link == null || link.state() != LinkState.UP) {
            return 0;
        }
        LinkNd nd = state.get(linkName);
        int ra = nd == null ? 0 : nd.raMtu;
        return ra > 0 ? Math.min(ra, link.mtu()) : link.mtu();
    }

    @Override
    protected NeighbourEngine engine() {
        return engine;
    }
}
