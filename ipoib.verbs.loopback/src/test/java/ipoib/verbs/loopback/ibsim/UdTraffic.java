package ipoib.verbs.loopback.ibsim;

import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.TimeUnit;

/** Unreliable datagrams between two loopback HCAs through the verbs API, for counters that must grow. */
final class UdTraffic {
    private UdTraffic() {}

    private static final QKey QKEY = QKey.of(0x1234);

    /** Sends {@code count} datagrams of {@code length} octets from port 1 of HCA {@code from} to HCA {@code to}; returns how many arrived. */
    static int send(LoopbackSubnet subnet, int from, int to, int count, int length) throws InterruptedException {
        Port a = subnet.devices().get(from).ports().getFirst();
        Port b = subnet.devices().get(to).ports().getFirst();
        try (Arena arena = Arena.ofConfined()) {
            CompletionQueue sendCq = a.createCompletionQueue(count + 8);
            CompletionQueue receiveCq = b.createCompletionQueue(count + 8);
            int pkeyIndexA = a.pkeyTable().indexOfPartition(ipoib.api.PKey.DEFAULT).orElseThrow();
            int pkeyIndexB = b.pkeyTable().indexOfPartition(ipoib.api.PKey.DEFAULT).orElseThrow();
            UdQueuePair sender = a.createUdQueuePair(new UdQueuePairConfig(sendCq, sendCq, count + 8, 8, pkeyIndexA,
                    QKEY, true));
            UdQueuePair receiver = b.createUdQueuePair(new UdQueuePairConfig(receiveCq, receiveCq, 8, count + 8,
                    pkeyIndexB, QKEY, true));
            long slot = length + UdQueuePair.GRH_AREA_LENGTH;
            MemorySegment memory = arena.allocate(slot * (count + 1));
            MemoryRegion regionA = a.device().registerMemory(memory);
            MemoryRegion regionB = b.device().registerMemory(memory);
            for (int i = 0; i < count; i++) {
                receiver.postReceive(i, regionB, slot * (i + 1), (int) slot);
            }
            AddressHandle ah = a.createAddressHandle(AddressVector.local(Lid.of(b.attributes().lid().value()), 0));
            for (int i = 0; i < count; i++) {
                sender.postSend(i, regionA, 0, length, ah, receiver.qpn(), QKEY);
            }
            WorkCompletions done = new WorkCompletions(count + 8);
            int arrived = 0;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (arrived < count && System.nanoTime() < deadline) {
                receiveCq.await(100, TimeUnit.MILLISECONDS);
                arrived += receiveCq.poll(done);
            }
            sendCq.poll(done);
            ah.close();
            sender.close();
            receiver.close();
            regionA.close();
            regionB.close();
            sendCq.close();
            receiveCq.close();
            return arrived;
        }
    }
}
