package ipoib.host.internal;

import ipoib.api.host.EchoReply;
import ipoib.api.host.HostRoute;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.IpHost;
import ipoib.api.host.UdpReceiver;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import java.net.InetAddress;
import java.time.Duration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
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
 * The host layer: the address table, the IP stack with echo and UDP, and the frame handlers of
 * IPv4 and IPv6. Resolvers come and go (dynamic references): while the one of a family is
 * missing, its packets are dropped and counted as {@code DROPPED_NO_RESOLVER}.
 */
@Component(configurationPid = HostComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {IpHost.class, UdpService.class}, immediate = true)
@Designate(ocd = HostConfiguration.class)
public final class HostComponent implements IpHost, UdpService {

    /** Configuration PID. */
    public static final String PID = "ipoib.host";

    private final Logger log;
    private final IpStack stack;
    private final List<ResolverRef> resolvers = new CopyOnWriteArrayList<>();
    private final ServiceRegistration<FrameHandler> ipv4Handler;
    private final ServiceRegistration<FrameHandler> ipv6Handler;

    private record ResolverRef(NeighbourResolver resolver, boolean ipv6) {}

    @Activate
    public HostComponent(BundleContext context, HostConfiguration configuration,
                         @Reference InterfaceAddresses addresses,
                         @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        // The table component is in this bundle: the stack reads its primitive snapshots.
        this.stack = new IpStack(((AddressTableComponent) addresses).table(), log::warn);
        apply(configuration);
        Hashtable<String, Object> v4 = new Hashtable<>();
        v4.put(FrameHandler.ETHERTYPE_PROPERTY, EtherType.IPV4);
        this.ipv4Handler = context.registerService(FrameHandler.class, stack::receiveIpv4, v4);
        Hashtable<String, Object> v6 = new Hashtable<>();
        v6.put(FrameHandler.ETHERTYPE_PROPERTY, EtherType.IPV6);
        this.ipv6Handler = context.registerService(FrameHandler.class, stack::receiveIpv6, v6);
    }

    @Modified
    void modified(HostConfiguration configuration) {
        apply(configuration);
    }

    private void apply(HostConfiguration c) {
        if (c.ttl() < 1 || c.ttl() > 255) {
            String message = "invalid " + PID + " property 'ttl' value " + c.ttl() + ": allowed 1..255";
            log.error(message);
            throw new IllegalArgumentException(message);
        }
        stack.ttl = c.ttl();
        stack.answerEcho = c.answerEcho();
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
        stack.close();
    }

    // ---- references ----------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        stack.addLink(link);
    }

    void removeLink(IpoibLink link) {
        stack.removeLink(link);
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
        stack.ipv4Resolver = four;
        stack.ipv6Resolver = six;
    }

    /**
     * Service property of a bridge's frame handlers (the netdev bundle exports the link to the
     * kernel): the kernel owns the link's addresses, answers echo and owns the sockets, so the
     * host layer steps back on that link.
     */
    static final String BRIDGE_PROPERTY = "ipoib.bridge";

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(" + BRIDGE_PROPERTY + "=*)")
    void addBridge(FrameHandler bridge, Map<String, Object> properties) {
        if (properties.get(FrameHandler.LINK_PROPERTY) instanceof String link) {
            stack.bridged.merge(link, 1, Integer::sum);
        }
    }

    void removeBridge(FrameHandler bridge, Map<String, Object> properties) {
        if (properties.get(FrameHandler.LINK_PROPERTY) instanceof String link) {
            stack.bridged.computeIfPresent(link, (k, n) -> n > 1 ? n - 1 : null);
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setMulticast(MulticastService service) {
        stack.multicast = service;
    }

    void unsetMulticast(MulticastService service) {
        if (stack.multicast == service) {
            stack.multicast = null;
        }
    }

    // ---- IpHost ----------------------------------------------------------------------------------------

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
    public Map<String, Long> counters() {
        return stack.counterSnapshot();
    }

    // ---- UdpService ------------------------------------------------------------------------------------

    @Override
    public UdpSocket open(int port, UdpReceiver receiver) {
        if (receiver == null) {
            throw new IllegalArgumentException("a UDP socket needs a receiver");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("invalid UDP port " + port + ": allowed 1..65535, or 0 for an ephemeral port");
        }
        if (port != 0) {
            UdpSocketImpl socket = new UdpSocketImpl(stack, port, receiver);
            if (!stack.sockets.compareAndSet(port, null, socket)) {
                throw new IllegalStateException("UDP port " + port + " is in use");
            }
            return socket;
        }
        int first = 49152;
        int count = 65536 - first;
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int candidate = first + (start + i) % count;
            UdpSocketImpl socket = new UdpSocketImpl(stack, candidate, receiver);
            if (stack.sockets.compareAndSet(candidate, null, socket)) {
                return socket;
            }
        }
        throw new IllegalStateException("no free ephemeral UDP port (49152..65535)");
    }

    /** The stack, for the shell commands of this bundle. */
    IpStack stack() {
        return stack;
    }
}
