package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;

/**
 * One preallocated work request with one {@code ibv_sge} — an {@code ibv_recv_wr}, or an
 * {@code ibv_send_wr} of a signalled SEND (RC: no address handle) — and the post that fills it
 * and hands it to a driver function ({@code post_send}, {@code post_recv}, {@code post_srq_recv})
 * with the slot of the outstanding work as its {@code wr_id}. Allocation-free; guarded by the
 * caller's lock.
 */
// Restricted methods (native calls) are this code's purpose; the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class SingleWorkRequest {
    private static final VarHandle SGE_ADDR = Structs.field(Structs.IBV_SGE, "addr");
    private static final VarHandle SGE_LENGTH = Structs.field(Structs.IBV_SGE, "length");
    private static final VarHandle SGE_LKEY = Structs.field(Structs.IBV_SGE, "lkey");
    // Constant handles (static final) are what the JIT folds on the data path.
    private static final VarHandle SEND_ID = Structs.field(Structs.IBV_SEND_WR, "wr_id");
    private static final VarHandle RECV_ID = Structs.field(Structs.IBV_RECV_WR, "wr_id");

    private final MemorySegment wr;
    private final MemorySegment sge;
    private final MemorySegment bad;
    private final boolean isSend;
    private final long rawBits;
    private final String what;

    private SingleWorkRequest(Arena arena, MemoryLayout layout, long rawBits, String what) {
        wr = arena.allocate(layout);
        sge = arena.allocate(Structs.IBV_SGE);
        bad = arena.allocate(ValueLayout.ADDRESS);
        isSend = layout == Structs.IBV_SEND_WR;
        Structs.field(layout, "next").set(wr, 0L, MemorySegment.NULL);
        Structs.field(layout, "sg_list").set(wr, 0L, sge);
        Structs.field(layout, "num_sge").set(wr, 0L, 1);
        this.rawBits = rawBits;
        this.what = what;
    }

    /** A receive work request for {@code post_recv} or {@code post_srq_recv}. */
    static SingleWorkRequest receive(Arena arena, String what) {
        return new SingleWorkRequest(arena, Structs.IBV_RECV_WR, 0, what);
    }

    /** A signalled SEND for {@code post_send}; its {@code wr_id} carries the send bit. */
    static SingleWorkRequest send(Arena arena, String what) {
        SingleWorkRequest r = new SingleWorkRequest(arena, Structs.IBV_SEND_WR, FabricQueuePair.SEND_BIT, what);
        Structs.field(Structs.IBV_SEND_WR, "opcode").set(r.wr, 0L, Consts.IBV_WR_SEND);
        Structs.field(Structs.IBV_SEND_WR, "send_flags").set(r.wr, 0L, Consts.IBV_SEND_SIGNALED);
        return r;
    }

    /**
     * Takes a slot, fills the request and calls {@code post} ({@code int (target, wr, bad_wr)}).
     *
     * @return false when the queue is full (no slot, or the driver's ENOMEM)
     * @throws VerbsException when the driver refuses otherwise; the slot is given back
     */
    boolean post(WorkSlots slots, long workRequestId, MethodHandle post, MemorySegment target, long address,
                 int length, int lkey) {
        int slot = slots.take(workRequestId);
        if (slot < 0) {
            return false;
        }
        if (isSend) {
            SEND_ID.set(wr, 0L, rawBits | slot);
        } else {
            RECV_ID.set(wr, 0L, rawBits | slot);
        }
        SGE_ADDR.set(sge, 0L, address);
        SGE_LENGTH.set(sge, 0L, length);
        SGE_LKEY.set(sge, 0L, lkey);
        int rc;
        try {
            rc = (int) post.invokeExact(target, wr, bad);
        } catch (Throwable t) {
            slots.release(slot);
            throw new VerbsException(what + " failed", 0, t);
        }
        if (rc != 0) {
            slots.release(slot);
            if (rc == Consts.ENOMEM) {
                return false;
            }
            throw new VerbsException(what + " failed: " + Native.describeErrno(rc), rc, null);
        }
        return true;
    }
}
