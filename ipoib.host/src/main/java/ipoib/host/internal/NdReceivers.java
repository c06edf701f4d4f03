package ipoib.host.internal;

import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.runtime.InterfaceCounters;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The {@link NeighborDiscoveryReceiver} services (normally the nd bundle's one) the IPv6 demux
 * hands Neighbor Discovery messages to. An array snapshot, so that the receive path allocates nothing.
 */
final class NdReceivers {
    private final CopyOnWriteArrayList<NeighborDiscoveryReceiver> list = new CopyOnWriteArrayList<>();
    private volatile NeighborDiscoveryReceiver[] current = new NeighborDiscoveryReceiver[0];
    private final Consumer<String> warn;
    private final InterfaceCounters.Counter delivered;
    private final InterfaceCounters.Counter noReceiver;
    private final InterfaceCounters.Counter errors;

    NdReceivers(InterfaceCounters counters, Consumer<String> warn) {
        this.warn = warn;
        this.delivered = counters.counter("rx_nd_delivered");
        this.noReceiver = counters.counter("rx_nd_no_receiver");
        this.errors = counters.counter("rx_nd_receiver_errors");
    }

    void add(NeighborDiscoveryReceiver r) {
        list.add(r);
        current = list.toArray(new NeighborDiscoveryReceiver[0]);
    }

    void remove(NeighborDiscoveryReceiver r) {
        list.remove(r);
        current = list.toArray(new NeighborDiscoveryReceiver[0]);
    }

    void deliver(IpoibLink link, ReceivedFrame frame, int type) {
        NeighborDiscoveryReceiver[] all = current;
        if (all.length == 0) {
            noReceiver.increment(link.name());
            return;
        }
        delivered.increment(link.name());
        for (NeighborDiscoveryReceiver r : all) {
            try {
                r.onNeighborDiscovery(link, frame, type);
            } catch (RuntimeException e) {
                errors.increment(link.name());
                warn.accept("Neighbor Discovery receiver " + r.getClass().getName() + " failed on type " + type
                        + " from " + link.name() + ": " + e);
            }
        }
    }
}
