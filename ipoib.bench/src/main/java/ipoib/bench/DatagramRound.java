package ipoib.bench;

import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.WorkCompletions;
import java.lang.foreign.Arena;

/**
 * One thread's round of a 64-octet UD datagram through the loopback fabric: post it from one port,
 * poll both completions, re-post the receive buffers it used. What the fabric benchmarks time.
 */
final class DatagramRound {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private static final int BUFFER = 4096 + 64;

    private final Side sender;
    private final Side receiver;
    private final AddressHandle ah;
    private final Qpn qpn;

    /** One port's CQ, UD queue pair and registered buffers. */
    private static final class Side {
        final CompletionQueue cq;
        final UdQueuePair qp;
        final MemoryRegion region;
        final WorkCompletions completions = new WorkCompletions(64);

        Side(Port port, int receives) {
            cq = port.createCompletionQueue(256);
            qp = port.createUdQueuePair(new UdQueuePairConfig(cq, cq, 64, 64, 0, QKEY, true));
            region = port.device().registerMemory(Arena.ofAuto().allocate((long) BUFFER * 64));
            for (int i = 0; i < receives; i++) {
                qp.postReceive(i, region, (long) i * BUFFER, BUFFER);
            }
        }
    }

    DatagramRound(Port from, Port to) {
        sender = new Side(from, 0);
        receiver = new Side(to, 32);
        ah = from.createAddressHandle(AddressVector.local(Lid.of(to.attributes().lid().value()), 0));
        qpn = receiver.qp.qpn();
    }

    /** Sends one datagram and re-posts what arrived; answers how many arrived (0 when it was lost). */
    int run() {
        sender.qp.postSend(1, sender.region, 0, 64, ah, qpn, QKEY);
        sender.cq.poll(sender.completions);
        int n = receiver.cq.poll(receiver.completions);
        for (int i = 0; i < n; i++) {
            long slot = receiver.completions.workRequestId(i);
            receiver.qp.postReceive(slot, receiver.region, slot * BUFFER, BUFFER);
        }
        return n;
    }
}
