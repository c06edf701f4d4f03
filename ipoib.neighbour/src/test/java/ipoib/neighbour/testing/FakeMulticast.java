package ipoib.neighbour.testing;

import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The multicast manager as ND uses it: listener joins that complete at once (the port is a
 * FullMember) with their counts per group, and sends that are recorded.
 */
public final class FakeMulticast implements MulticastService {
    /** One packet sent to a group. */
    public record Sent(String link, InetAddress group, int etherType, byte[] packet) {}

    public final List<Sent> sent = new CopyOnWriteArrayList<>();
    /** Listener joins minus leaves, per "link group". */
    public final Map<String, Integer> listeners = new ConcurrentHashMap<>();
    /** True: listener joins never complete (an SA that does not answer). */
    public volatile boolean joinsHang;

    @Override
    public CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group) {
        listeners.merge(linkName + " " + group.getHostAddress(), 1, Integer::sum);
        return joinsHang ? new CompletableFuture<>() : CompletableFuture.completedFuture(null);
    }

    @Override
    public CompletionStage<Void> leaveListener(String linkName, InetAddress group) {
        listeners.merge(linkName + " " + group.getHostAddress(), -1, Integer::sum);
        return CompletableFuture.completedFuture(null);
    }

    /** The packets sent to a group. */
    public List<Sent> to(InetAddress group) {
        return sent.stream().filter(s -> s.group().equals(group)).toList();
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet) {
        sent.add(new Sent(link.name(), group, etherType, packet.toArray(ValueLayout.JAVA_BYTE)));
        return TransmitResult.SENT;
    }

    @Override
    public EgressDecision egressDecision(String linkName, Mgid mgid) {
        throw new UnsupportedOperationException("not used by the resolvers");
    }

    @Override
    public EgressDecision egressDecision(String linkName, InetAddress group) {
        throw new UnsupportedOperationException("not used by the resolvers");
    }

    @Override
    public List<GroupInfo> groups(String linkName) {
        return List.of();
    }

    @Override
    public Map<String, Long> counters(String linkName) {
        return Map.of();
    }

    @Override
    public void setRouterMode(String linkName, boolean enabled) {
        throw new UnsupportedOperationException("not used by the resolvers");
    }

    @Override
    public boolean isRouterMode(String linkName) {
        return false;
    }
}
