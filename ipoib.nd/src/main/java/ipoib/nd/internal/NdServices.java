package ipoib.nd.internal;

import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.codec.nd.NdCodec;
import ipoib.codec.nd.NdMessage;
import ipoib.neighbour.ResolverLinks;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * What every part of ND shares: the services it is bound to (the host's address table, the
 * multicast manager, both optional and dynamic), the bound links and ND's state of each, the
 * knobs, the control loop, logging and counters; and the look-ups in the address table.
 */
final class NdServices {
    volatile InterfaceAddresses addresses;
    volatile MulticastService multicast;
    volatile NdOptions options;
    final ResolverLinks links;
    final Map<String, LinkNd> state = new ConcurrentHashMap<>();
    final ControlLoop control;
    final Reporter reporter;
    final NdCounters counters;

    NdServices(NdOptions options, ResolverLinks links, ControlLoop control, Reporter reporter, NdCounters counters) {
        this.options = options;
        this.links = links;
        this.control = control;
        this.reporter = reporter;
        this.counters = counters;
    }

    /** Runs a task on the control loop. */
    void run(Runnable task) {
        control.execute(task);
    }

    /** The control loop's clock, in nanoseconds. */
    long now() {
        return control.clock().nanoTime();
    }

    /** The link's entry of that address in the address table, or null. */
    InterfaceAddress find(IpoibLink link, InetAddress address) {
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
    Inet6Address source(IpoibLink link, Inet6Address target) {
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

    static MemorySegment encode(NdMessage message) {
        MemorySegment segment = MemorySegment.ofArray(new byte[NdCodec.encodedLength(message)]);
        NdCodec.encode(segment, 0, message);
        return segment;
    }
}
