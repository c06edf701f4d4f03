package ipoib.api.mcast;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * The multicast group manager of every link (RFC 4391 §10, §11).
 */
@ProviderType
public interface MulticastService {

    /**
     * A local listener joins an IP group on a link: the first one makes the port a FullMember
     * (creating the IB group with the broadcast group's parameters when needed).
     *
     * @throws IllegalArgumentException when {@code group} is not a multicast address
     */
    CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group);

    /** A local listener leaves; the last one makes the port leave the IB group. */
    CompletionStage<Void> leaveListener(String linkName, InetAddress group);

    /** Sends an IP multicast packet following the egress decision of §10. Never blocks. */
    TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet);

    /** The egress decision §10 would take now for a group on a link. */
    EgressDecision egressDecision(String linkName, Mgid mgid);

    /** Snapshots of the groups of a link (all links when {@code linkName} is null). */
    List<GroupInfo> groups(String linkName);

    /** Router mode (§11): NonMember joins of every IPoIB group and a wildcard create trap. */
    void setRouterMode(String linkName, boolean enabled);
}
