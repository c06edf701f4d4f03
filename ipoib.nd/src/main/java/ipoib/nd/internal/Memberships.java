package ipoib.nd.internal;

import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.AddressBits;
import ipoib.codec.nd.InterfaceIdentifiers;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import ipoib.runtime.Cancellable;

/**
 * ND's multicast groups on each link (control thread): all-nodes and the solicited-node group of
 * each address that is not DUPLICATE, joined through the {@link MulticastService} as listener
 * joins (which make the port a FullMember), and left when no longer needed.
 */
final class Memberships {
    static final Inet6Address ALL_NODES = AddressBits.ipv6(0xFF02_0000_0000_0000L, 1);
    private static final long MEMBERSHIP_TIMEOUT_MILLIS = 10_000;

    private final NdServices nd;

    Memberships(NdServices nd) {
        this.nd = nd;
    }

    /** Joins all-nodes and the solicited-node groups of the link's addresses; leaves the others. */
    void update(IpoibLink link) {
        MulticastService m = nd.multicast;
        InterfaceAddresses table = nd.addresses;
        LinkNd state = nd.state.get(link.name());
        if (m == null || table == null || state == null || link.state() != LinkState.UP) {
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
            if (state.joined.add(g)) {
                m.joinListener(link.name(), g).whenComplete((info, failure) -> {
                    if (failure != null) {
                        nd.reporter.warn("ND could not join " + AddressBits.text(g) + " on " + link.name() + ": "
                                + failure.getMessage());
                        nd.run(() -> state.joined.remove(g));
                    }
                });
            }
        }
        for (InetAddress g : new ArrayList<>(state.joined)) {
            if (!needed.contains(g)) {
                state.joined.remove(g);
                leave(m, link.name(), g);
            }
        }
    }

    /** Leaves every group joined on the link (the multicast manager keeps listeners until told). */
    void leaveAll(String linkName, LinkNd state) {
        MulticastService m = nd.multicast;
        if (m != null) {
            for (InetAddress g : state.joined) {
                leave(m, linkName, g);
            }
        }
        state.joined.clear();
    }

    /** A new (or no) multicast manager knows none of our joins. */
    void forgetAll() {
        nd.state.values().forEach(s -> s.joined.clear());
    }

    private void leave(MulticastService m, String link, InetAddress group) {
        try {
            m.leaveListener(link, group);
        } catch (RuntimeException e) {
            nd.reporter.debug("leaving " + AddressBits.text(group) + " on " + link + ": " + e.getMessage());
        }
    }

    /**
     * Completes when the port is a FullMember of every group: a second listener join whose
     * stage says so, then its leave (ND's own listener stays).
     */
    CompletableFuture<Void> fullMember(MulticastService m, IpoibLink link, List<InetAddress> groups) {
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
        CompletableFuture<Void> all = CompletableFuture.allOf(stages.toArray(new CompletableFuture<?>[0]));
        // A timer of ND's control loop, on its clock: tests move it by hand.
        Cancellable timeout = nd.control.schedule(() -> all.completeExceptionally(new TimeoutException(
                "not a FullMember of " + groups.size() + " groups within " + MEMBERSHIP_TIMEOUT_MILLIS + " ms")),
                MEMBERSHIP_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        all.whenComplete((ok, failure) -> timeout.cancel());
        return all;
    }
}
