package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.CompletionStatus;
import ipoib.api.verbs.VerbsException;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;

/**
 * An {@code ibv_cq} with its own completion channel. {@link #poll} reads the driver's completions
 * into a preallocated {@code ibv_wc} array and translates them; it allocates nothing.
 * {@link #await} arms the CQ ({@code req_notify_cq}), looks once more (a completion that arrived
 * before arming raises no event), then waits on the channel fd.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricCompletionQueue implements CompletionQueue {
    /** ibv_wc entries read per poll_cq call. */
    static final int BATCH = 32;
    private static final long WC_SIZE = Structs.IBV_WC.byteSize();
    private static final VarHandle WC_WR_ID = Structs.field(Structs.IBV_WC, "wr_id");
    private static final VarHandle WC_STATUS = Structs.field(Structs.IBV_WC, "status");
    private static final VarHandle WC_BYTE_LEN = Structs.field(Structs.IBV_WC, "byte_len");
    private static final VarHandle WC_QP_NUM = Structs.field(Structs.IBV_WC, "qp_num");
    private static final VarHandle WC_SRC_QP = Structs.field(Structs.IBV_WC, "src_qp");
    private static final VarHandle WC_FLAGS = Structs.field(Structs.IBV_WC, "wc_flags");
    private static final VarHandle WC_PKEY_INDEX = Structs.field(Structs.IBV_WC, "pkey_index");
    private static final VarHandle WC_SLID = Structs.field(Structs.IBV_WC, "slid");
    private static final VarHandle WC_SL = Structs.field(Structs.IBV_WC, "sl");

    final FabricDevice device;
    final MemorySegment cq;
    private final MemorySegment channel;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment wcs;
    private final MemorySegment stash;
    private final MemorySegment eventCq;
    private final MemorySegment eventContext;
    private final MemorySegment errno;
    private final FdWaiter waiter;
    private final int capacity;
    private final ReentrantLock lock = new ReentrantLock();
    private final ReentrantLock awaitLock = new ReentrantLock();
    /** Queue pairs (UD and RC) whose completions arrive here; copy-on-write, scanned by QPN. */
    private volatile CompletionOwners queuePairs = CompletionOwners.EMPTY;
    /** The work-request id a queue pair hands back (see CompletionOwner#completed); under {@code lock}. */
    private final long[] completedId = new long[1];
    /** Flush completions made up for queue pairs destroyed with work outstanding. */
    private final ArrayDeque<long[]> synthetic = new ArrayDeque<>();
    private boolean stashed;
    private boolean armed;
    private volatile boolean closed;

    FabricCompletionQueue(FabricDevice device, MemorySegment channel, MemorySegment cq) {
        this.device = device;
        this.channel = channel.reinterpret(Structs.IBV_COMP_CHANNEL.byteSize());
        this.cq = cq.reinterpret(Structs.IBV_CQ.byteSize());
        this.capacity = this.cq.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_CQ, "cqe"));
        this.wcs = arena.allocate(Structs.IBV_WC, BATCH);
        this.stash = arena.allocate(Structs.IBV_WC);
        this.eventCq = arena.allocate(ValueLayout.ADDRESS);
        this.eventContext = arena.allocate(ValueLayout.ADDRESS);
        this.errno = Native.errnoSegment(arena);
        FdWaiter w;
        try {
            w = new FdWaiter(this.channel.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_COMP_CHANNEL, "fd")));
        } catch (RuntimeException e) {
            arena.close();
            throw e;
        }
        this.waiter = w;
    }

    @Override
    public int capacity() {
        return capacity;
    }

    void attach(CompletionOwner qp) {
        lock.lock();
        try {
            queuePairs = queuePairs.with(qp);
        } finally {
            lock.unlock();
        }
    }

    void detach(CompletionOwner qp) {
        lock.lock();
        try {
            queuePairs = queuePairs.without(qp);
        } finally {
            lock.unlock();
        }
    }

    boolean inUse() {
        return !queuePairs.isEmpty();
    }

    /** Queues a flush completion of a destroyed queue pair (see FabricQueuePair#destroy). */
    /**
     * The end of a destroyed queue pair on its CQs: the flushes of its send and receive work
     * (collected under the queue pair's locks, queued here outside them: a poll holds the CQ's
     * lock and then takes the queue pair's) and its detachment from both.
     */
    static void destroyed(CompletionOwner qp, FabricCompletionQueue sendCq, long[] sendFlushes,
                          FabricCompletionQueue recvCq, long[] recvFlushes) {
        for (long id : sendFlushes) {
            sendCq.addFlush(id, WorkCompletions.OPCODE_SEND, qp.queuePairNumber());
        }
        for (long id : recvFlushes) {
            recvCq.addFlush(id, WorkCompletions.OPCODE_RECEIVE, qp.queuePairNumber());
        }
        sendCq.detach(qp);
        if (recvCq != sendCq) {
            recvCq.detach(qp);
        }
    }

    void addFlush(long workRequestId, int opcode, int qpn) {
        lock.lock();
        try {
            synthetic.add(new long[] {workRequestId, opcode, qpn});
        } finally {
            lock.unlock();
        }
    }

    @Override
    public int poll(WorkCompletions into) {
        into.clear();
        lock.lock();
        try {
            if (closed) {
                throw new VerbsException("poll: completion queue is closed");
            }
            while (!synthetic.isEmpty() && into.hasRoom()) {
                long[] s = synthetic.poll();
                into.add(s[0], CompletionStatus.WORK_REQUEST_FLUSH_ERROR, (int) s[1], 0, (int) s[2], 0, 0, 0, 0, false);
            }
            if (stashed && into.hasRoom()) {
                stashed = false;
                translate(stash, 0L, into);
            }
            while (into.hasRoom()) {
                int want = Math.min(BATCH, into.capacity() - into.count());
                int n;
                try {
                    n = (int) device.ops.pollCq.invokeExact(cq, want, wcs);
                } catch (Throwable t) {
                    throw new VerbsException("poll_cq failed", 0, t);
                }
                if (n < 0) {
                    throw new VerbsException("poll_cq failed with " + n);
                }
                for (int i = 0; i < n; i++) {
                    translate(wcs, i * WC_SIZE, into);
                }
                if (n < want) {
                    break;
                }
            }
            return into.count();
        } finally {
            lock.unlock();
        }
    }

    /** Turns one ibv_wc into an entry of the batch, giving back its queue pair's slot. */
    private void translate(MemorySegment wc, long base, WorkCompletions into) {
        long raw = (long) WC_WR_ID.get(wc, base);
        int qpn = (int) WC_QP_NUM.get(wc, base);
        CompletionOwner qp = queuePairs.find(qpn);
        if (qp == null) {
            return; // a queue pair destroyed meanwhile: its work was flushed by addFlush
        }
        boolean send = FabricQueuePair.isSend(raw);
        int slot = FabricQueuePair.slot(raw);
        if (!qp.completed(send, slot, completedId)) {
            return; // already completed as a flush of the destroyed queue pair
        }
        long id = completedId[0];
        int status = (int) WC_STATUS.get(wc, base);
        if (status != Consts.IBV_WC_SUCCESS && status != Consts.IBV_WC_WR_FLUSH_ERR) {
            qp.completedWithError();
        }
        into.add(id, status(status), send ? WorkCompletions.OPCODE_SEND : WorkCompletions.OPCODE_RECEIVE,
                (int) WC_BYTE_LEN.get(wc, base), qpn, (int) WC_SRC_QP.get(wc, base) & 0xFFFFFF,
                Short.toUnsignedInt((short) WC_SLID.get(wc, base)), (byte) WC_SL.get(wc, base) & 0xF,
                Short.toUnsignedInt((short) WC_PKEY_INDEX.get(wc, base)),
                ((int) WC_FLAGS.get(wc, base) & Consts.IBV_WC_GRH) != 0);
    }

    static CompletionStatus status(int wcStatus) {
        if (wcStatus == Consts.IBV_WC_SUCCESS) {
            return CompletionStatus.SUCCESS;
        } else if (wcStatus == Consts.IBV_WC_LOC_LEN_ERR) {
            return CompletionStatus.LOCAL_LENGTH_ERROR;
        } else if (wcStatus == Consts.IBV_WC_LOC_QP_OP_ERR) {
            return CompletionStatus.LOCAL_QP_OPERATION_ERROR;
        } else if (wcStatus == Consts.IBV_WC_LOC_PROT_ERR) {
            return CompletionStatus.LOCAL_PROTECTION_ERROR;
        } else if (wcStatus == Consts.IBV_WC_WR_FLUSH_ERR) {
            return CompletionStatus.WORK_REQUEST_FLUSH_ERROR;
        } else if (wcStatus == Consts.IBV_WC_REM_INV_REQ_ERR) {
            return CompletionStatus.REMOTE_INVALID_REQUEST_ERROR;
        } else if (wcStatus == Consts.IBV_WC_REM_ACCESS_ERR) {
            return CompletionStatus.REMOTE_ACCESS_ERROR;
        } else if (wcStatus == Consts.IBV_WC_REM_OP_ERR) {
            return CompletionStatus.REMOTE_OPERATION_ERROR;
        } else if (wcStatus == Consts.IBV_WC_RETRY_EXC_ERR) {
            return CompletionStatus.RETRY_EXCEEDED;
        } else if (wcStatus == Consts.IBV_WC_RNR_RETRY_EXC_ERR) {
            return CompletionStatus.RNR_RETRY_EXCEEDED;
        }
        return CompletionStatus.GENERAL_ERROR;
    }

    @Override
    public boolean await(long timeout, TimeUnit unit) throws InterruptedException {
        long deadline = System.nanoTime() + unit.toNanos(timeout);
        awaitLock.lockInterruptibly();
        try {
            if (closed) {
                return false;
            }
            if (armAndCheck()) {
                return true;
            }
            // Wait in slices so that an interrupt is noticed: poll(2) itself is not interruptible.
            while (true) {
                if (Thread.interrupted()) {
                    throw new InterruptedException();
                }
                long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
                if (left <= 0) {
                    return false;
                }
                FdWaiter.Result r = waiter.await((int) Math.min(left, 100));
                if (r == FdWaiter.Result.WOKEN) {
                    return false;
                }
                if (r == FdWaiter.Result.READY) {
                    takeEvent();
                    // An event can be stale (raised for a completion already polled): only a
                    // completion ends the wait, else arm again and go on waiting.
                    if (armAndCheck()) {
                        return true;
                    }
                }
            }
        } finally {
            awaitLock.unlock();
        }
    }

    /**
     * Whether a completion is there: one stashed or synthetic, or one polled after arming the
     * notification (a completion queued before arming raises no event, so look once more).
     */
    private boolean armAndCheck() {
        lock.lock();
        try {
            if (stashed || !synthetic.isEmpty()) {
                return true;
            }
            if (!armed) {
                int rc = (int) device.ops.reqNotifyCq.invokeExact(cq, 0);
                if (rc != 0) {
                    throw new VerbsException("req_notify_cq failed: " + Native.describeErrno(rc), rc, null);
                }
                armed = true;
            }
            int n = (int) device.ops.pollCq.invokeExact(cq, 1, stash);
            if (n > 0) {
                stashed = true;
                return true;
            }
            return false;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("arming the completion queue failed", 0, t);
        } finally {
            lock.unlock();
        }
    }

    /** ibv_get_cq_event (will not block: the channel fd is readable) and its acknowledgement. */
    private void takeEvent() {
        try {
            int rc = (int) device.ibv.getCqEvent.invokeExact(errno, channel, eventCq, eventContext);
            if (rc != 0) {
                throw new VerbsException("ibv_get_cq_event failed: " + Native.describeErrno(Native.errno(errno)),
                        Native.errno(errno), null);
            }
            MemorySegment which = eventCq.get(ValueLayout.ADDRESS, 0);
            device.ibv.ackCqEvents.invokeExact(which, 1);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("ibv_get_cq_event failed", 0, t);
        }
        lock.lock();
        try {
            armed = false;
        } finally {
            lock.unlock();
        }
    }

    @Override
    public void wakeup() {
        if (!closed) {
            waiter.wakeup();
        }
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        device.closeCompletionQueue(this);
    }

    /**
     * Destroys the CQ and its channel; called by the device once its queue pairs are gone. Waits
     * for a thread in {@link #await} to leave first.
     */
    void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        waiter.wakeup();
        awaitLock.lock();
        try {
            lock.lock();
            try {
                device.call("ibv_destroy_cq", () -> (int) device.ibv.destroyCq.invokeExact(cq));
                device.call("ibv_destroy_comp_channel", () -> (int) device.ibv.destroyCompChannel.invokeExact(channel));
                waiter.close();
                arena.close();
            } finally {
                lock.unlock();
            }
        } finally {
            awaitLock.unlock();
        }
    }
}
