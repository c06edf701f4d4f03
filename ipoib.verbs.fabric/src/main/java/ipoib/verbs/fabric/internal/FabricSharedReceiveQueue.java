package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * An {@code ibv_srq}. Posting writes one preallocated {@code ibv_recv_wr} + {@code ibv_sge} and
 * calls the driver's {@code post_srq_recv} (the static inline {@code ibv_post_srq_recv} of
 * verbs.h), so it allocates nothing. Its buffers complete on the receive CQ of the RC queue pair
 * that consumed them, with that queue pair's {@code qp_num}; the queue pair hands the slot back
 * here ({@link #completed}).
 *
 * <p>Closing: the device refuses while RC queue pairs use it ({@code ibv_destroy_srq} fails with
 * EBUSY on hardware too); buffers still posted then complete with a flush error on the receive CQ
 * of the last queue pair that used it, as the SPI promises, when that CQ is still open.
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricSharedReceiveQueue implements SharedReceiveQueue {
    final FabricDevice device;
    final MemorySegment srq;
    private final Arena arena = Arena.ofShared();
    private final SingleWorkRequest request;
    private final Object lock = new Object();
    private final WorkSlots slots;
    /** RC queue pairs created on it and not yet destroyed; under {@code lock}. */
    private int users;
    /** Where buffers still posted at close complete; under {@code lock}. */
    private FabricCompletionQueue flushCq;
    private int flushQpn;
    private volatile boolean closed;

    FabricSharedReceiveQueue(FabricDevice device, MemorySegment srq, int capacity) {
        this.device = device;
        this.srq = srq.reinterpret(Structs.IBV_SRQ.byteSize());
        this.slots = new WorkSlots(capacity);
        request = SingleWorkRequest.receive(arena, "post_srq_recv");
    }

    @Override
    public int capacity() {
        return slots.capacity();
    }

    @Override
    public boolean postReceive(long workRequestId, MemoryRegion region, long offset, int length) {
        FabricMemoryRegion mr = FabricMemoryRegion.of(region, device, "post SRQ receive");
        long address = mr.bufferAddress(offset, length, "post SRQ receive");
        synchronized (lock) {
            if (closed) {
                throw new VerbsException("post SRQ receive: the shared receive queue is closed");
            }
            return request.post(slots, workRequestId, device.ops.postSrqRecv, srq, address, length, mr.localKey());
        }
    }

    /** A receive of this queue completed on an RC queue pair: the slot comes back. */
    boolean completed(int slot, long[] id) {
        synchronized (lock) {
            if (!slots.release(slot)) {
                return false;
            }
            id[0] = slots.id(slot);
            return true;
        }
    }

    /** An RC queue pair was created on it; its receive CQ is where a close flushes. */
    void attach(FabricCompletionQueue recvCq, int qpn) {
        synchronized (lock) {
            users++;
            flushCq = recvCq;
            flushQpn = qpn;
        }
    }

    void detach() {
        synchronized (lock) {
            users--;
        }
    }

    boolean inUse() {
        synchronized (lock) {
            return users > 0;
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        device.closeSharedReceiveQueue(this);
    }

    /** Destroys the SRQ; called by the device once no queue pair uses it. */
    void destroy() {
        long[] flushes;
        FabricCompletionQueue cq;
        int qpn;
        synchronized (lock) {
            if (closed) {
                return;
            }
            closed = true;
            flushes = slots.drainInPostOrder();
            cq = flushCq;
            qpn = flushQpn;
        }
        device.call("ibv_destroy_srq", () -> (int) device.ibv.destroySrq.invokeExact(srq));
        if (cq != null && !cq.isClosed()) {
            for (long id : flushes) {
                cq.addFlush(id, WorkCompletions.OPCODE_RECEIVE, qpn);
            }
        }
        arena.close();
    }

    @Override
    public String toString() {
        return "SRQ of " + device.name() + " (" + slots.capacity() + " buffers)";
    }
}
