package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.WorkCompletions;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.TimeUnit;

/** A UD consumer on one loopback port for tests: a CQ, a QP, and registered buffers. */
final class Endpoint implements AutoCloseable {
    static final int BUFFER = 4096 + 64;
    final LoopPort port;
    final CompletionQueue cq;
    final UdQueuePair qp;
    final MemorySegment memory;
    final MemoryRegion region;
    final WorkCompletions completions = new WorkCompletions(64);
    private int nextReceive;

    Endpoint(LoopPort port, PKey pkey, QKey qkey, int receives) {
        this.port = port;
        this.cq = port.createCompletionQueue(256);
        int index = port.pkeyTable().indexOf(pkey).orElseThrow(() -> new AssertionError(pkey + " not in " + port.pkeyTable()));
        this.qp = port.createUdQueuePair(new UdQueuePairConfig(cq, cq, 32, 64, index, qkey, true));
        this.memory = Arena.ofAuto().allocate((long) BUFFER * 128);
        this.region = port.device().registerMemory(memory);
        for (int i = 0; i < receives; i++) {
            postReceive();
        }
    }

    void postReceive() {
        int slot = 64 + (nextReceive++ % 64);
        if (!qp.postReceive(slot, region, (long) slot * BUFFER, BUFFER)) {
            throw new AssertionError("receive queue full");
        }
    }

    AddressHandle handleTo(Endpoint other) {
        return port.createAddressHandle(AddressVector.local(Lid.of(other.port.lidValue()), 0));
    }

    AddressHandle handleToGroup(MulticastGroup group) {
        return port.createAddressHandle(new AddressVector(group.mlid(), 0, null, true, group.mgid().gid(), 0, 0, 0, 0));
    }

    /** Sends {@code length} octets of {@code fill} and returns the send completion status. */
    boolean send(AddressHandle ah, Qpn qpn, QKey qkey, int length, byte fill) {
        memory.asSlice(0, length).fill(fill);
        return qp.postSend(1, region, 0, length, ah, qpn, qkey);
    }

    /** Polls whatever completions are there now (the loopback completes synchronously). */
    int poll() {
        return cq.poll(completions);
    }

    boolean awaitCompletion() throws InterruptedException {
        return cq.await(5, TimeUnit.SECONDS);
    }

    byte payloadByte(int completion, int offset) {
        long wr = completions.workRequestId(completion);
        return memory.get(ValueLayout.JAVA_BYTE, wr * BUFFER + UdQueuePair.GRH_AREA_LENGTH + offset);
    }

    Gid grhDestination(int completion) {
        long at = completions.workRequestId(completion) * BUFFER;
        return Gid.fromBytes(memory.asSlice(at + 24, 16).toArray(ValueLayout.JAVA_BYTE));
    }

    @Override
    public void close() {
        qp.close();
        cq.close();
        region.close();
    }
}
