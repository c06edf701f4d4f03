package ipoib.netdev.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.resolve.NeighbourResolver;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;

/**
 * Everything the bridge needs from the rest of the stack, through its public services only:
 * the link (broadcast, MTU, state, received frames), the resolvers of both families (unicast),
 * the multicast manager (the egress decision of RFC 4391 §10, listener joins), the Neighbor
 * Discovery receiver (the link's ND messages, which reach the bridge alone) and the address table
 * (so that ARP and ND answer for the kernel's addresses). The one class to re-point when those
 * services change shape.
 */
final class StackAdapter {
    /** What the bridge does with a received IP frame, and at the end of the link's poll. */
    interface Receiver {
        void fromLink(ReceivedFrame frame);

        void endOfBatch();
    }

    private final IpoibLink link;
    volatile NeighbourResolver ipv4;
    volatile NeighbourResolver ipv6;
    volatile MulticastService multicast;
    volatile NeighborDiscoveryReceiver neighborDiscovery;
    volatile InterfaceAddresses addresses;

    StackAdapter(IpoibLink link) {
        this.link = link;
    }

    IpoibLink link() {
        return link;
    }

    String linkName() {
        return link.name();
    }

    boolean up() {
        return link.state() == LinkState.UP;
    }

    /** Whether IPv6 is resolved on the link (the nd bundle is there), so that it gets a link-local address. */
    boolean resolvesIpv6() {
        return ipv6 != null;
    }

    /** The IPoIB MTU (0 unless UP). */
    int mtu() {
        return link.mtu();
    }

    /** A packet to a unicast next hop in {@link ipoib.api.resolve.AddressBits} form, through the family's resolver. */
    TransmitResult unicast(boolean v6, long high, long low, MemorySegment packet) {
        NeighbourResolver r = v6 ? ipv6 : ipv4;
        return r == null ? TransmitResult.DROPPED_NO_RESOLVER
                : r.send(link, high, low, v6 ? EtherType.IPV6 : EtherType.IPV4, packet);
    }

    /** A Neighbor Discovery message from the link, to the nd bundle; false when there is none now. */
    boolean neighborDiscovery(ReceivedFrame frame, int icmpv6Type) {
        NeighborDiscoveryReceiver r = neighborDiscovery;
        if (r == null) {
            return false;
        }
        r.onNeighborDiscovery(link, frame, icmpv6Type);
        return true;
    }

    TransmitResult multicast(InetAddress group, int etherType, MemorySegment packet) {
        MulticastService m = multicast;
        return m == null ? TransmitResult.DROPPED_NO_RESOLVER : m.send(link, group, etherType, packet);
    }

    TransmitResult broadcast(int etherType, MemorySegment packet) {
        return link.sendBroadcast(etherType, packet);
    }

    /** A listener joins: the port becomes a FullMember of the group's IB group. */
    CompletionStage<?> join(InetAddress group) {
        MulticastService m = multicast;
        return m == null ? CompletableFuture.failedFuture(new IllegalStateException("no multicast manager"))
                : m.joinListener(link.name(), group);
    }

    CompletionStage<?> leave(InetAddress group) {
        MulticastService m = multicast;
        return m == null ? CompletableFuture.completedFuture(null) : m.leaveListener(link.name(), group);
    }

    /** The link's addresses in the stack's table (empty while there is no table). */
    List<InterfaceAddress> addresses() {
        InterfaceAddresses t = addresses;
        return t == null ? List.of() : t.addresses(link.name());
    }

    /** Puts a kernel address into the stack's table so that ARP/ND answer for it; false without a table. */
    boolean addAddress(InetAddress address, int prefixLength) {
        InterfaceAddresses t = addresses;
        if (t == null) {
            return false;
        }
        t.add(link.name(), address, prefixLength, AddressOrigin.MANUAL, null);
        return true;
    }

    void removeAddress(InetAddress address) {
        InterfaceAddresses t = addresses;
        if (t != null) {
            t.remove(link.name(), address);
        }
    }

    boolean isKernelOrigin(InterfaceAddress a) {
        return a.origin() == AddressOrigin.MANUAL;
    }

    /**
     * Registers the receiver for the link's IPv4 and IPv6 frames of {@code device} (in
     * {@code netns}, or null) as the link's bridge ({@link FrameHandler#BRIDGE_PROPERTY}): the link
     * hands those frames to it alone; closing the result unregisters.
     */
    AutoCloseable receive(BundleContext context, String device, String netns, Receiver receiver) {
        FrameHandler handler = new FrameHandler() {
            @Override
            public void onFrame(IpoibLink l, ReceivedFrame frame) {
                receiver.fromLink(frame);
            }

            @Override
            public void endOfBatch(IpoibLink l) {
                receiver.endOfBatch();
            }
        };
        ServiceRegistration<?> four = context.registerService(FrameHandler.class, handler,
                properties(EtherType.IPV4, device, netns));
        ServiceRegistration<?> six = context.registerService(FrameHandler.class, handler,
                properties(EtherType.IPV6, device, netns));
        return () -> {
            unregister(four);
            unregister(six);
        };
    }

    /**
     * Publishes a device's counters for the console's {@code /metrics} as {@code ipoib_netdev_*}
     * with the labels {@code interface} and {@code device}; closing the result withdraws them.
     */
    AutoCloseable publishCounters(BundleContext context, String device, Supplier<Map<String, Long>> counters) {
        String name = link.name();
        MetricsSource source = sink -> NetdevMetrics.collect(sink, counters.get(), name, device);
        ServiceRegistration<?> r = context.registerService(MetricsSource.class, source, null);
        return () -> unregister(r);
    }

    /**
     * Calls {@code action} (which must not block: it runs on the link's control thread) each time
     * the link comes UP or goes DOWN, so that the device takes a new MTU and its carrier at once;
     * closing the result stops it.
     */
    AutoCloseable onUpOrDown(BundleContext context, Runnable action) {
        LinkListener listener = (l, change) -> {
            if (l == link && (change == LinkListener.Change.UP || change == LinkListener.Change.DOWN)) {
                action.run();
            }
        };
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(FrameHandler.LINK_PROPERTY, link.name()); // for a link's LinkListener.target (HostsSetup)
        ServiceRegistration<?> r = context.registerService(LinkListener.class, listener, p);
        return () -> unregister(r);
    }

    private Hashtable<String, Object> properties(int etherType, String device, String netns) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put(FrameHandler.ETHERTYPE_PROPERTY, etherType);
        p.put(FrameHandler.LINK_PROPERTY, link.name());
        p.put(FrameHandler.BRIDGE_PROPERTY, device);
        if (netns != null) {
            p.put(FrameHandler.BRIDGE_NETNS_PROPERTY, netns);
        }
        return p;
    }

    private static void unregister(ServiceRegistration<?> r) {
        try {
            r.unregister();
        } catch (IllegalStateException alreadyGone) {
            // The bundle is stopping.
        }
    }
}
