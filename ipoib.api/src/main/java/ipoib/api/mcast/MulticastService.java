package ipoib.api.mcast;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;

/**
 * The multicast group manager of every link (RFC 4391 §10, §11).
 */
@ProviderType
public interface MulticastService {

    /**
     * A local listener joins an IP group on a link: the first one makes the port a FullMember
     * (creating the IB group with the broadcast group's parameters when needed). The stage
     * completes when the port is a FullMember. A join the SA refuses is retried for as long as the
     * listener stays, at the backoff's ceiling once there (as Linux does); each failure is logged
     * and posted (RFC 4391 §12), and the group's state in {@link #groups} says what is happening.
     * The stage fails only when the listener is not registered (the link's group table is full,
     * the manager stops) or leaves before the join completes. Listeners belong to the interface
     * name: they outlive a re-registration of the link's service.
     *
     * @throws IllegalArgumentException when {@code group} is not a multicast address
     */
    CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group);

    /** A local listener leaves; the last one makes the port leave the IB group. */
    CompletionStage<Void> leaveListener(String linkName, InetAddress group);

    /** Sends an IP multicast packet following the egress decision of §10. Never blocks. */
    TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet);

    /**
     * The egress decision §10 would take now for a group on a link. An MGID does not carry the
     * scope of an IPv6 group (only its low 80 bits), so for an IPv6 MGID whose IP group the
     * manager has not seen the all-routers branch is not taken; {@link #egressDecision(String,
     * InetAddress)} knows the scope.
     */
    EgressDecision egressDecision(String linkName, Mgid mgid);

    /**
     * The egress decision §10 would take now for an IP group on a link. When the manager does
     * not know yet whether the group exists it asks the subnet administrator, waiting at most
     * the link's multicast join timeout.
     *
     * @throws IllegalArgumentException when {@code group} is not a multicast address or the link
     *                                  is unknown
     * @since 1.1
     */
    EgressDecision egressDecision(String linkName, InetAddress group);

    /** Snapshots of the groups of a link (all links when {@code linkName} is null). */
    List<GroupInfo> groups(String linkName);

    /**
     * The multicast manager's counters of a link by name (frames queued for a join, sent to the
     * all-routers group, dropped by reason, joins, failures, traps), empty for an unknown link.
     *
     * @since 1.1
     */
    Map<String, Long> counters(String linkName);

    /**
     * Router mode (§11): NonMember joins of every IPoIB group and a wildcard create trap.
     *
     * @throws IllegalArgumentException when the link is unknown
     */
    void setRouterMode(String linkName, boolean enabled);

    /**
     * Whether router mode is on for a link.
     *
     * @throws IllegalArgumentException when the link is unknown
     * @since 1.1
     */
    boolean isRouterMode(String linkName);
}
