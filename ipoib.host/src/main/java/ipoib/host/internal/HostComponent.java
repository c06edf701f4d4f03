package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostRoute;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.IpHost;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.config.LastGoodConfiguration;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The host layer's DS component, thin: it builds the {@link IpStack} engine, feeds it the links,
 * resolvers, multicast manager and Neighbor Discovery receivers as they come and go, applies
 * the checked configuration, and registers the IPv4 and IPv6 EtherType handlers.
 */
@Component(configurationPid = HostComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {IpHost.class, UdpService.class}, immediate = true)
@Designate(ocd = HostConfiguration.class)
public final class HostComponent implements IpHost, UdpService {

    /** Configuration PID. */
    public static final String PID = "ipoib.host";

    private final Logger log;
    private final IpStack stack;
    private final AllHostsGroup allHosts;
    private final HostSettings settings;
    /** The stored configuration in force; a refused one is written back to it (or deleted: the defaults). */
    private final LastGoodConfiguration lastGood;
    private final List<ResolverRef> resolvers = new CopyOnWriteArrayList<>();
    private final ServiceRegistration<FrameHandler> ipv4Handler;
    private final ServiceRegistration<FrameHandler> ipv6Handler;

    private record ResolverRef(NeighbourResolver resolver, boolean ipv6) {}

    @Activate
    public HostComponent(BundleContext context, Map<String, Object> properties,
                         @Reference InterfaceAddresses addresses,
                         @Reference ConfigurationAdmin configurationAdmin,
                         @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        // The table component is in this bundle: the stack reads its primitive snapshots.
        this.stack = new IpStack(((AddressTableComponent) addresses).table(), log::warn);
        this.allHosts = new AllHostsGroup(log::warn);
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        this.settings = new HostSettings(stack, lastGood::refused);
        apply(properties);
        this.ipv4Handler = register(context, EtherType.IPV4, stack.ipv4Handler());
        this.ipv6Handler = register(context, EtherType.IPV6, stack.ipv6Handler());
    }

    private static ServiceRegistration<FrameHandler> register(BundleContext context, int etherType, FrameHandler h) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(FrameHandler.ETHERTYPE_PROPERTY, etherType);
        return context.registerService(FrameHandler.class, h, p);
    }

    @Modified
    void modified(Map<String, Object> properties) {
        apply(properties);
    }

    private void apply(Map<String, Object> properties) {
        if (settings.apply(properties)) {
            lastGood.accepted(properties);
        }
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : List.of(ipv4Handler, ipv6Handler)) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework is stopping.
            }
        }
        allHosts.close();
        stack.close();
    }

    // ---- references ----------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        stack.addLink(link);
        allHosts.linkAdded(link.name());
    }

    void removeLink(IpoibLink link) {
        stack.removeLink(link);
        allHosts.linkRemoved(link.name());
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        Object family = properties.get(NeighbourResolver.FAMILY_PROPERTY);
        boolean v6 = NeighbourResolver.IPV6.equals(family);
        if (!v6 && !NeighbourResolver.IPV4.equals(family)) {
            log.warn("resolver " + resolver.getClass().getName() + " ignored: service property "
                    + NeighbourResolver.FAMILY_PROPERTY + " is " + family + ", expected ipv4 or ipv6");
            return;
        }
        resolvers.add(new ResolverRef(resolver, v6));
        choose();
    }

    void removeResolver(NeighbourResolver resolver) {
        resolvers.removeIf(r -> r.resolver() == resolver);
        choose();
    }

    /** The latest resolver of each family is the one in use. */
    private void choose() {
        NeighbourResolver four = null;
        NeighbourResolver six = null;
        for (ResolverRef r : resolvers) {
            if (r.ipv6()) {
                six = r.resolver();
            } else {
                four = r.resolver();
            }
        }
        stack.resolver(false, four);
        stack.resolver(true, six);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setMulticast(MulticastService service) {
        stack.multicast(service);
        allHosts.multicast(service);
    }

    void unsetMulticast(MulticastService service) {
        if (stack.multicast() == service) {
            stack.multicast(null);
            allHosts.multicast(null);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addNdReceiver(NeighborDiscoveryReceiver receiver) {
        stack.addNdReceiver(receiver);
    }

    void removeNdReceiver(NeighborDiscoveryReceiver receiver) {
        stack.removeNdReceiver(receiver);
    }

    // ---- IpHost and UdpService: the engine's ----------------------------------------------------------

    @Override
    public Optional<HostRoute> route(String linkName, InetAddress destination) {
        return stack.route(linkName, destination);
    }

    @Override
    public CompletionStage<EchoReply> echo(String linkName, InetAddress destination, int identifier, int sequence,
                                           int payloadLength, Duration timeout) {
        return stack.echo(linkName, destination, identifier, sequence, payloadLength, timeout);
    }

    @Override
    public CompletionStage<EchoReply> echo(HostRoute route, int identifier, int sequence, int payloadLength,
                                           Duration timeout) {
        return stack.echo(route, identifier, sequence, payloadLength, timeout);
    }

    @Override
    public Map<String, Long> counters() {
        return stack.counters();
    }

    @Override
    public Map<String, Map<String, Long>> countersByInterface() {
        return stack.countersByInterface();
    }

    @Override
    public UdpSocket open(int port, UdpReceiver receiver) {
        return stack.open(port, receiver);
    }
}
