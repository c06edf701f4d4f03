package ipoib.nd.internal;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;

/** What ND keeps of one link (control thread, except {@link #raMtu}, which senders read). */
final class LinkNd {
    volatile int raMtu;
    /** The groups ND joined as a listener on the link. */
    final Set<InetAddress> joined = new HashSet<>();
    int routerSolicitationsLeft;
    long nextRouterSolicitation;
    boolean routerAdvertisementSeen;
    /** Default routers heard, with the end of their lifetime (control loop clock). */
    final Map<InetAddress, Long> routers = new HashMap<>();
    int curHopLimit;
}
