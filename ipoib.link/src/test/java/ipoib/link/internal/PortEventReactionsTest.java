package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.PKey;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.LinkListener.Change;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a link does on its port's events, against what Linux IPoIB does on them
 * (drivers/infiniband/ulp/ipoib/ipoib_verbs.c {@code ipoib_event}, ipoib_ib.c
 * {@code __ipoib_ib_dev_flush}): a LID change or a client re-register is a light flush (paths
 * marked stale and queried again, multicast joined again, the queue pair kept), a P_Key table
 * change that leaves the interface's entry alone changes nothing, one that removes the
 * partition takes the carrier down until it is back.
 */
class PortEventReactionsTest {
    static final int ETHERTYPE = 0x88B5;
    final LinkFixture fixture = new LinkFixture();
    final Map<String, AtomicLong> delivered = new ConcurrentHashMap<>();
    final MemorySegment payload = MemorySegment.ofArray(new byte[16]);
    LinkEngine a;
    LinkEngine b;

    @BeforeEach
    void twoLinks() {
        fixture.handlers = new FrameHandler[] {
                (link, frame) -> delivered.computeIfAbsent(link.name(), n -> new AtomicLong()).incrementAndGet()};
        a = fixture.up("a", "loop0");
        b = fixture.up("b", "loop1");
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    long delivered(LinkEngine link) {
        AtomicLong n = delivered.get(link.name());
        return n == null ? 0 : n.get();
    }

    long ownDropped(LinkEngine link) {
        return link.dropCounters().get("rx_dropped_own_multicast");
    }

    /** a broadcasts one frame; waits until b has it and a has dropped its own copy. */
    void broadcastFromA(long expectedAtB, long expectedOwnAtA) {
        assertEquals(TransmitResult.SENT, a.sendBroadcast(ETHERTYPE, payload));
        fixture.until("b receives broadcast " + expectedAtB + " and a drops its own copy",
                () -> delivered(b) == expectedAtB && ownDropped(a) == expectedOwnAtA);
        assertEquals(0, delivered(a), "a never delivers its own multicast to its handlers");
    }

    /**
     * Own multicast is recognised by source QPN and source LID (Linux: ipoib_ib_handle_rx_wc drops
     * {@code wc->slid == priv->local_lid && wc->src_qp == priv->qp->qp_num}), so after the SM gives
     * the port a new LID the link must compare with the new one; its paths are queried again.
     */
    @Test
    void afterItsOwnLidChangesTheLinkStillDropsItsOwnMulticastAndQueriesItsPathsAgain() throws Exception {
        LinkPath path = a.acquirePath(b.gid(), false).toCompletableFuture().get();
        broadcastFromA(1, 1);
        long refreshes = a.pathCounters().get("path_refreshes");
        var port = fixture.subnet.fabric().port("loop0", 1);
        int newLid = a.port().attributes().lid().value() == 0x50 ? 0x51 : 0x50;

        fixture.subnet.fabric().changeLid(port, newLid);
        fixture.until("PATHS_STALE after the LID change", () -> fixture.changes.contains(Change.PATHS_STALE));
        assertEquals(newLid, a.port().attributes().lid().value());
        broadcastFromA(2, 2);
        fixture.until("the path queried again", () -> a.pathCounters().get("path_refreshes") > refreshes);
        assertEquals(TransmitResult.SENT, a.sendUnicast(path, b.qpn(), ETHERTYPE, payload));
        fixture.until("b receives the unicast", () -> delivered(b) == 3);
        assertEquals(LinkState.UP, a.state());
        path.release();
    }

    /**
     * A client re-register (here with an SM change) makes the SM forget the joins: the broadcast
     * group is joined again with the same queue pair (same QPN, the link address stays), the
     * multicast manager is told to join its groups again, then the resolvers that paths are stale.
     */
    @Test
    void aClientReregisterJoinsTheBroadcastGroupAgainKeepingTheQueuePair() {
        var qpn = a.qpn();
        fixture.changes.clear();
        fixture.subnet.fabric().smChange();
        // Both links re-join (the SM forgot both); until b has, a's broadcast has no receiver.
        fixture.until("both re-joins announced", () -> fixture.count(Change.MULTICAST_RESET) == 2
                && fixture.changes.lastIndexOf(Change.PATHS_STALE) > fixture.changes.indexOf(Change.MULTICAST_RESET));
        assertEquals(LinkState.UP, a.state());
        assertEquals(qpn, a.qpn(), "no new queue pair: Linux's light flush keeps it");
        assertTrue(!fixture.changes.contains(Change.DOWN), "the link did not go down: " + fixture.changes);
        broadcastFromA(1, 1);
    }

    /** IBA 10.9.2: the queue pair holds a P_Key index; while that entry is unchanged, nothing happens. */
    @Test
    void aPKeyTableChangeThatKeepsTheEntryChangesNothingOneThatRemovesThePartitionTakesTheLinkDown() {
        var port = fixture.subnet.fabric().port("loop0", 1);
        OptionalInt index = a.port().pkeyTable().indexOfPartition(PKey.DEFAULT);
        assertEquals(OptionalInt.of(0), index, "the fabric's default table holds only the default partition");
        var qpn = a.qpn();

        fixture.subnet.fabric().setPKeys(port, List.of(PKey.DEFAULT, PKey.of(0x8001)));
        fixture.until("the change seen", () -> fixture.log.stream().anyMatch(l -> l.contains("is unchanged")));
        assertEquals(LinkState.UP, a.state());
        assertEquals(qpn, a.qpn());

        fixture.subnet.fabric().setPKeys(port, List.of(PKey.of(0x8001)));
        fixture.until("a DOWN without its partition", () -> a.state() == LinkState.DOWN);
        assertTrue(a.stateReason().startsWith("P_Key 0xffff is not in the P_Key table of port loop0/1"),
                a.stateReason());

        fixture.subnet.fabric().setPKeys(port, List.of(PKey.of(0x8001), PKey.DEFAULT));
        fixture.until("a UP again on the partition's new index", () -> a.state() == LinkState.UP);
        assertEquals(1, a.status().resources().pkeyIndex);
        broadcastFromA(1, 1);
    }
}
