package ipoib.itest;

import ipoib.api.JoinState;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.GroupOrigin;
import ipoib.api.mcast.MulticastService;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** TEMPORARY stand-in for ipoib.mcast until it is on main: every group is the broadcast group. */
final class FakeMulticast implements MulticastService {
    @Override
    public CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group) {
        return CompletableFuture.completedFuture(new GroupInfo(linkName, Mgid.parse("ff12:601b:ffff::1"), group, null,
                JoinState.FULL_MEMBER, GroupOrigin.LISTENER, 1, 0, "JOINED"));
    }

    @Override
    public CompletionStage<Void> leaveListener(String linkName, InetAddress group) {
        return CompletableFuture.completedFuture(null);
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet) {
        return link.sendBroadcast(etherType, packet);
    }

    @Override
    public EgressDecision egressDecision(String linkName, Mgid mgid) {
        return EgressDecision.SEND;
    }

    @Override
    public List<GroupInfo> groups(String linkName) {
        return List.of();
    }

    @Override
    public void setRouterMode(String linkName, boolean enabled) {
    }
}
