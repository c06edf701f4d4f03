package ipoib.host.internal;

import ipoib.api.mcast.MulticastService;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

/**
 * Keeps every interface a member of the IPv4 all-hosts group 224.0.0.1 (RFC 1112 §4: every IP
 * multicast host joins it on every interface, as Linux does), through a listener of the multicast
 * manager: a FullMember join of the group's MGID. (IPv6's all-nodes ff02::1 is joined by ND.)
 * The multicast manager keeps a listener by interface name, so a link that goes and comes back
 * keeps its membership; the listener leaves when the interface is gone from the host.
 */
final class AllHostsGroup {
    static final InetAddress ALL_HOSTS = address();
    /** Seconds an interface may wait for the multicast manager to know it. */
    private static final int RETRIES = 60;

    private final Set<String> links = new HashSet<>();
    private final Consumer<String> warn;
    private MulticastService multicast;

    AllHostsGroup(Consumer<String> warn) {
        this.warn = warn;
    }

    synchronized void linkAdded(String link) {
        if (links.add(link) && multicast != null) {
            join(multicast, link);
        }
    }

    synchronized void linkRemoved(String link) {
        if (links.remove(link) && multicast != null) {
            multicast.leaveListener(link, ALL_HOSTS);
        }
    }

    /** The multicast manager came (joins for every known interface) or went (null: nothing to leave). */
    synchronized void multicast(MulticastService service) {
        multicast = service;
        if (service != null) {
            links.forEach(link -> join(service, link));
        }
    }

    /** The host is going away: its listeners leave (the manager keeps listeners by interface name). */
    synchronized void close() {
        MulticastService m = multicast;
        if (m != null) {
            links.forEach(link -> m.leaveListener(link, ALL_HOSTS));
        }
        links.clear();
        multicast = null;
    }

    private void join(MulticastService service, String link) {
        join(service, link, 1);
    }

    /**
     * The multicast manager may learn of an interface after the host does: an unknown interface
     * is asked again each second, for as long as the interface and the manager are there.
     */
    private void join(MulticastService service, String link, int attempt) {
        service.joinListener(link, ALL_HOSTS).whenComplete((joined, failure) -> {
            if (failure == null || !wanted(service, link)) {
                return;
            }
            if (attempt < RETRIES) {
                CompletableFuture.delayedExecutor(1, TimeUnit.SECONDS).execute(() -> {
                    if (wanted(service, link)) {
                        join(service, link, attempt + 1);
                    }
                });
            } else {
                warn.accept(link + ": join of the all-hosts group 224.0.0.1 failed " + attempt + " times, last: "
                        + failure.getMessage());
            }
        });
    }

    private synchronized boolean wanted(MulticastService service, String link) {
        return multicast == service && links.contains(link);
    }

    private static InetAddress address() {
        try {
            return InetAddress.getByAddress(new byte[] {(byte) 224, 0, 0, 1});
        } catch (UnknownHostException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
