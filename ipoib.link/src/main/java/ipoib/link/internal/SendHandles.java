package ipoib.link.internal;

import ipoib.api.verbs.AddressHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * The address handle each send buffer was posted with, until its completion is reclaimed: what
 * lets the link destroy a replaced handle only after the sends that used it are complete (Linux
 * records {@code ah->last_send = priv->tx_head} in {@code ipoib_send} and frees the handle in
 * {@code __ipoib_reap_ah} once {@code tx_tail} has passed it; drivers/infiniband/ulp/ipoib/ipoib_ib.c).
 * A send buffer pool is not a ring here (buffers come back in any order), so the link keeps the
 * handle per buffer instead of a sequence number.
 *
 * <p>Publication uses volatile accesses on both sides (see {@link PathEntry#handleFor}): a sender
 * stores the handle, then re-reads the path's current handle; the reaper replaces the path's
 * handle, then scans. Either the scan sees the store, or the sender sees the replacement and does
 * not post on the old handle.
 */
final class SendHandles {
    private static final VarHandle SLOT = MethodHandles.arrayElementVarHandle(AddressHandle[].class);

    private final AddressHandle[] slots;

    SendHandles(int sendBuffers) {
        this.slots = new AddressHandle[sendBuffers];
    }

    /** The buffer {@code index} is about to be posted with {@code handle}. */
    void set(int index, AddressHandle handle) {
        SLOT.setVolatile(slots, index, handle);
    }

    /**
     * The same, by a sender holding the UD sender's lock, which the reaper takes before it scans:
     * the lock orders it, no fence needed.
     */
    void setLocked(int index, AddressHandle handle) {
        SLOT.setRelease(slots, index, handle);
    }

    /** The handle the buffer is posted with, read by the thread that recorded it. */
    AddressHandle get(int index) {
        return (AddressHandle) SLOT.getOpaque(slots, index);
    }

    /** The buffer's send completed (or was never posted). */
    void clear(int index) {
        SLOT.setRelease(slots, index, null);
    }

    /** Whether a send posted with the handle has not completed yet. */
    boolean inUse(AddressHandle handle) {
        for (int i = 0; i < slots.length; i++) {
            if (SLOT.getVolatile(slots, i) == handle) {
                return true;
            }
        }
        return false;
    }
}
