package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.SendWorkRequests;
import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;

/**
 * Steady-state delivery allocates nothing: post send, delivery into the receiver's buffer, both
 * completions, poll, and re-post of the receive buffer, measured with the JVM's per-thread
 * allocation counter.
 */
class DataPathAllocationTest {

    /** A started fabric of two HCAs with one port each. */
    private static Fabric twoHcas() {
        FabricConfig d = FabricConfig.defaults();
        Fabric fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 1));
        fabric.start();
        return fabric;
    }

    /** Bytes this thread allocates running {@code round} {@code measured} times after {@code warm} warm-up runs. */
    private static long allocatedBy(Runnable round, int warm, int measured) {
        for (int i = 0; i < warm; i++) {
            round.run();
        }
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < measured; i++) {
            round.run();
        }
        return threads.getCurrentThreadAllocatedBytes() - before;
    }

    @Test
    void sendDeliverPollAndRepostAllocateNothing() {
        try (Fabric fabric = twoHcas()) {
            QKey qkey = QKey.of(0x0b1b);
            try (Endpoint a = new Endpoint(fabric.devices().get(0).loopPorts().get(0), PKey.DEFAULT, qkey, 0);
                 Endpoint b = new Endpoint(fabric.devices().get(1).loopPorts().get(0), PKey.DEFAULT, qkey, 32)) {
                AddressHandle ah = a.handleTo(b);
                var qpn = b.qp.qpn();
                Runnable round = () -> {
                    a.qp.postSend(1, a.region, 0, 64, ah, qpn, qkey);
                    a.cq.poll(a.completions);
                    int n = b.cq.poll(b.completions);
                    for (int i = 0; i < n; i++) {
                        long slot = b.completions.workRequestId(i);
                        b.qp.postReceive(slot, b.region, slot * Endpoint.BUFFER, Endpoint.BUFFER);
                    }
                };
                long allocated = allocatedBy(round, 20_000, 10_000);
                // One allocated object per round would be at least 160 000 bytes; a few bytes in
                // all are the JVM's own (counter cells, compilation), not the data path's.
                assertTrue(allocated < 10_000, allocated + " bytes allocated by 10 000 send/receive rounds");
                assertEquals(30_000L, fabric.counters().delivered());
            }
        }
    }

    @Test
    void postListsOfSendsAndReceivesAllocateNothing() {
        try (Fabric fabric = twoHcas()) {
            QKey qkey = QKey.of(0x0b1b);
            try (Endpoint a = new Endpoint(fabric.devices().get(0).loopPorts().get(0), PKey.DEFAULT, qkey, 0);
                 Endpoint b = new Endpoint(fabric.devices().get(1).loopPorts().get(0), PKey.DEFAULT, qkey, 0)) {
                AddressHandle ah = a.handleTo(b);
                var qpn = b.qp.qpn();
                ReceiveWorkRequests receives = new ReceiveWorkRequests(16);
                SendWorkRequests sends = new SendWorkRequests(16);
                Runnable round = () -> {
                    receives.clear();
                    sends.clear();
                    for (int k = 0; k < 16; k++) {
                        receives.add(64 + k, b.region, (64L + k) * Endpoint.BUFFER, Endpoint.BUFFER);
                        sends.add(k, a.region, k * 64L, 64, ah, qpn, qkey);
                    }
                    b.qp.postReceive(receives);
                    a.qp.postSend(sends);
                    while (a.cq.poll(a.completions) > 0) {
                        // drained
                    }
                    while (b.cq.poll(b.completions) > 0) {
                        // drained
                    }
                };
                long allocated = allocatedBy(round, 5_000, 5_000);
                assertTrue(allocated < 10_000, allocated + " bytes allocated by 5 000 rounds of 16-entry lists");
                assertEquals(160_000L, fabric.counters().delivered());
            }
        }
    }
}
