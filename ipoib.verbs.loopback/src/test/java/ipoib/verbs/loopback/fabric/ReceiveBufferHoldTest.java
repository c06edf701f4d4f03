package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.SendWorkRequests;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The fabric's delivery policy for a unicast datagram whose destination has no posted receive
 * buffer ({@link ReceiveBufferHold}): the sender is held until the receiver posts one, a list's
 * datagrams in order; with no hold, or once the bound passes, the datagram is dropped and counted
 * at the receiving port.
 */
class ReceiveBufferHoldTest {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private static final PKey FULL = PKey.of(0xffff);
    /** Long enough never to pass in these tests: they end by the receiver's post, not by time. */
    private static final Duration FOREVER = Duration.ofMinutes(5);

    private final Fabric fabric;

    ReceiveBufferHoldTest() {
        FabricConfig d = FabricConfig.defaults();
        fabric = new Fabric(new FabricConfig(2, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 1));
        fabric.start();
    }

    @AfterEach
    void close() {
        fabric.close();
    }

    private LoopPort port(int hca) {
        return fabric.devices().get(hca).loopPorts().get(0);
    }

    @Test
    void aSenderWaitsForTheReceiversPostInsteadOfLosingTheDatagram() throws Exception {
        fabric.receiveBufferHold(FOREVER);
        try (Endpoint a = new Endpoint(port(0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(1), FULL, QKEY, 0)) {
            AddressHandle ah = a.handleTo(b);
            Thread sender = new Thread(() -> a.send(ah, b.qp.qpn(), QKEY, 100, (byte) 5));
            sender.start();
            awaitHeldOrDone(sender);
            assertTrue(sender.isAlive(), "the sender returned before a receive buffer was posted");
            b.postReceive();
            sender.join(TimeUnit.MINUTES.toMillis(1));
            assertFalse(sender.isAlive());
            assertEquals(1, b.poll());
            assertEquals((byte) 5, b.payloadByte(0, 99));
            assertEquals(0, fabric.counters().drops(DropReason.NO_RECEIVE_BUFFER));
            assertEquals(0, port(1).receiveBufferDrops());
        }
    }

    @Test
    void aListTakesThePostedBuffersAndWaitsForMoreInOrder() throws Exception {
        fabric.receiveBufferHold(FOREVER);
        try (Endpoint a = new Endpoint(port(0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(1), FULL, QKEY, 2)) {
            AddressHandle ah = a.handleTo(b);
            SendWorkRequests list = new SendWorkRequests(4);
            for (int i = 0; i < 4; i++) {
                a.memory.asSlice(i * 64L, 10).fill((byte) i);
                list.add(i, a.region, i * 64L, 10, ah, b.qp.qpn(), QKEY);
            }
            Thread sender = new Thread(() -> a.qp.postSend(list));
            sender.start();
            awaitHeldOrDone(sender);
            assertTrue(sender.isAlive(), "the sender returned with two datagrams and no buffer for them");
            b.postReceive();
            b.postReceive();
            sender.join(TimeUnit.MINUTES.toMillis(1));
            assertFalse(sender.isAlive());
            assertEquals(4, b.poll());
            for (int i = 0; i < 4; i++) {
                assertEquals((byte) i, b.payloadByte(i, 0), "datagram " + i + " in order");
            }
            assertEquals(0, port(1).receiveBufferDrops());
        }
    }

    @Test
    void withoutAHoldTheDatagramIsDroppedAndCountedAtTheReceivingPort() {
        fabric.receiveBufferHold(Duration.ZERO);
        try (Endpoint a = new Endpoint(port(0), FULL, QKEY, 0); Endpoint b = new Endpoint(port(1), FULL, QKEY, 1)) {
            AddressHandle ah = a.handleTo(b);
            a.send(ah, b.qp.qpn(), QKEY, 10, (byte) 1);
            a.send(ah, b.qp.qpn(), QKEY, 10, (byte) 2);
            SendWorkRequests list = new SendWorkRequests(3);
            for (int i = 0; i < 3; i++) {
                list.add(i, a.region, 0, 10, ah, b.qp.qpn(), QKEY);
            }
            assertEquals(3, a.qp.postSend(list));
            assertEquals(1, b.poll());
            assertEquals(4, fabric.counters().drops(DropReason.NO_RECEIVE_BUFFER));
            assertEquals(4, port(1).receiveBufferDrops());
            assertEquals(0, port(0).receiveBufferDrops());
        }
    }

    @Test
    void aNegativeHoldIsRefusedAndTheOldOneKept() {
        fabric.receiveBufferHold(Duration.ofMillis(3));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> fabric.receiveBufferHold(Duration.ofMillis(-1)));
        assertTrue(e.getMessage().contains("zero or positive"), e.getMessage());
        assertEquals(Duration.ofMillis(3), fabric.receiveBufferHold());
    }

    /** Until the thread parks in the hold (it spins and yields first) or ends. */
    private static void awaitHeldOrDone(Thread t) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(1);
        while (t.isAlive() && t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < deadline, "sender neither held nor done: " + t.getState());
            Thread.yield();
        }
    }
}
