package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.IbMtu;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.ReceiveWorkRequests;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Post lists on the loopback provider: order, a full queue, a refused request, a queue pair in ERROR. */
class PostListTest {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private Fabric fabric;
    private Endpoint a;
    private Endpoint b;

    @BeforeEach
    void start() {
        FabricConfig d = FabricConfig.defaults();
        fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 1));
        fabric.start();
        a = new Endpoint(fabric.devices().get(0).loopPorts().get(0), PKey.DEFAULT, QKEY, 0);
        b = new Endpoint(fabric.devices().get(1).loopPorts().get(0), PKey.DEFAULT, QKEY, 0);
    }

    @AfterEach
    void stop() {
        a.close();
        b.close();
        fabric.close();
    }

    @Test
    void aListOfSendsFillsAListOfReceivesInOrder() {
        ReceiveWorkRequests receives = new ReceiveWorkRequests(16);
        for (int i = 0; i < 10; i++) {
            receives.add(64 + i, b.region, (64L + i) * Endpoint.BUFFER, Endpoint.BUFFER);
        }
        assertEquals(10, b.qp.postReceive(receives));
        AddressHandle ah = a.handleTo(b);
        SendWorkRequests sends = new SendWorkRequests(16);
        for (int i = 0; i < 10; i++) {
            a.memory.asSlice(i * 128L, 100).fill((byte) (i + 1));
            sends.add(500 + i, a.region, i * 128L, 90 + i, ah, b.qp.qpn(), QKEY);
        }
        assertEquals(10, a.qp.postSend(sends));
        assertEquals(10, a.poll());
        for (int i = 0; i < 10; i++) {
            assertEquals(500 + i, a.completions.workRequestId(i), "send completions in post order");
            assertEquals(CompletionStatus.SUCCESS, a.completions.status(i));
        }
        assertEquals(10, b.poll());
        for (int i = 0; i < 10; i++) {
            assertEquals(64 + i, b.completions.workRequestId(i), "the i-th datagram in the i-th buffer of the list");
            assertEquals(90 + i + UdQueuePair.GRH_AREA_LENGTH, b.completions.byteLength(i));
            assertEquals(i + 1, b.payloadByte(i, 0));
            assertEquals(i + 1, b.payloadByte(i, 89 + i));
        }
    }

    @Test
    void aFullReceiveQueueTakesThePartThatFits() {
        ReceiveWorkRequests receives = new ReceiveWorkRequests(100);
        for (int i = 0; i < 70; i++) {
            receives.add(i, b.region, (long) (i % 64 + 64) * Endpoint.BUFFER, Endpoint.BUFFER);
        }
        assertEquals(64, b.qp.postReceive(receives), "the receive queue is 64 deep");
        receives.removeFirst(64);
        assertEquals(6, receives.count());
        assertEquals(64, receives.workRequestId(0), "the rest stays, in order");
        assertEquals(0, b.qp.postReceive(receives));
    }

    @Test
    void aRefusedRequestEndsTheListAndThrowsWhenItIsFirst() {
        ReceiveWorkRequests receives = new ReceiveWorkRequests(4);
        receives.add(1, b.region, 64L * Endpoint.BUFFER, Endpoint.BUFFER);
        receives.add(2, b.region, 65L * Endpoint.BUFFER, 39);
        assertEquals(1, b.qp.postReceive(receives), "the request before the refused one is posted");
        receives.removeFirst(1);
        VerbsException e = assertThrows(VerbsException.class, () -> b.qp.postReceive(receives));
        assertEquals("postReceive: buffer of 39 octets cannot hold the 40-octet GRH area", e.getMessage());

        AddressHandle ah = a.handleTo(b);
        SendWorkRequests sends = new SendWorkRequests(4);
        sends.add(1, a.region, 0, 10, ah, b.qp.qpn(), QKEY);
        sends.add(2, a.region, 0, 10, ah, null, QKEY);
        assertEquals(1, a.qp.postSend(sends));
        sends.removeFirst(1);
        e = assertThrows(VerbsException.class, () -> a.qp.postSend(sends));
        assertEquals("postSend: remote QPN and Q_Key are required", e.getMessage());
        assertEquals(1, a.poll(), "only the first send was posted");
        assertEquals(1, b.poll(), "and delivered into the one buffer posted");
    }

    @Test
    void aListPostedToAQueuePairInErrorCompletesWithFlushErrors() {
        ((LoopQueuePair) b.qp).fail();
        ReceiveWorkRequests receives = new ReceiveWorkRequests(4);
        receives.add(7, b.region, 64L * Endpoint.BUFFER, Endpoint.BUFFER);
        receives.add(8, b.region, 65L * Endpoint.BUFFER, Endpoint.BUFFER);
        assertEquals(2, b.qp.postReceive(receives));
        assertEquals(2, b.poll());
        WorkCompletions c = b.completions;
        assertEquals(7, c.workRequestId(0));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, c.status(0));
        assertEquals(8, c.workRequestId(1));
        assertEquals(CompletionStatus.WORK_REQUEST_FLUSH_ERROR, c.status(1));
    }
}
