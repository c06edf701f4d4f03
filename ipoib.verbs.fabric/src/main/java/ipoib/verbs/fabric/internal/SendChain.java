package ipoib.verbs.fabric.internal;

import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A preallocated chain of {@code ibv_send_wr}s (UD sends, one {@code ibv_sge} each) linked
 * through {@code next}, as long as the send queue is deep: a list of any length the queue can
 * take goes to the driver in one {@code post_send} call. Filling writes only the fields that
 * change per datagram; the chain is cut after the last entry for the call and joined again after
 * it. Guarded by the queue pair's send lock.
 */
final class SendChain {
    private static final long WR_SIZE = Structs.IBV_SEND_WR.byteSize();
    private static final long SGE_SIZE = Structs.IBV_SGE.byteSize();
    private static final VarHandle ID = Structs.field(Structs.IBV_SEND_WR, "wr_id");
    /** {@code next} is written as a 64-bit address, so that joining the chain allocates nothing. */
    private static final long NEXT = Structs.offset(Structs.IBV_SEND_WR, "next");
    private static final VarHandle SG_LIST = Structs.field(Structs.IBV_SEND_WR, "sg_list");
    private static final VarHandle NUM_SGE = Structs.field(Structs.IBV_SEND_WR, "num_sge");
    private static final VarHandle OPCODE = Structs.field(Structs.IBV_SEND_WR, "opcode");
    private static final VarHandle FLAGS = Structs.field(Structs.IBV_SEND_WR, "send_flags");
    private static final VarHandle AH = Structs.field(Structs.IBV_SEND_WR, "wr.ud.ah");
    private static final VarHandle QPN = Structs.field(Structs.IBV_SEND_WR, "wr.ud.remote_qpn");
    private static final VarHandle QKEY = Structs.field(Structs.IBV_SEND_WR, "wr.ud.remote_qkey");
    private static final VarHandle SGE_ADDR = Structs.field(Structs.IBV_SGE, "addr");
    private static final VarHandle SGE_LENGTH = Structs.field(Structs.IBV_SGE, "length");
    private static final VarHandle SGE_LKEY = Structs.field(Structs.IBV_SGE, "lkey");

    final MemorySegment first;
    private final MemorySegment sges;
    final MemorySegment bad;
    private final int length;

    SendChain(Arena arena, int length) {
        this.length = length;
        first = arena.allocate(Structs.IBV_SEND_WR, length);
        sges = arena.allocate(Structs.IBV_SGE, length);
        bad = arena.allocate(ValueLayout.ADDRESS);
        for (int i = 0; i < length; i++) {
            long at = i * WR_SIZE;
            first.set(ValueLayout.JAVA_LONG, at + NEXT, i + 1 < length ? first.address() + (i + 1) * WR_SIZE : 0L);
            SG_LIST.set(first, at, sges.asSlice(i * SGE_SIZE));
            NUM_SGE.set(first, at, 1);
            OPCODE.set(first, at, Consts.IBV_WR_SEND);
            FLAGS.set(first, at, Consts.IBV_SEND_SIGNALED);
        }
    }

    int length() {
        return length;
    }

    void set(int i, long rawId, long address, int octets, int lkey, MemorySegment ah, int remoteQpn, int remoteQkey) {
        long at = i * WR_SIZE;
        long sge = i * SGE_SIZE;
        ID.set(first, at, rawId);
        SGE_ADDR.set(sges, sge, address);
        SGE_LENGTH.set(sges, sge, octets);
        SGE_LKEY.set(sges, sge, lkey);
        AH.set(first, at, ah);
        QPN.set(first, at, remoteQpn);
        QKEY.set(first, at, remoteQkey);
    }

    /** Ends the chain after entry {@code last} (for one call). */
    void cutAfter(int last) {
        first.set(ValueLayout.JAVA_LONG, last * WR_SIZE + NEXT, 0L);
    }

    /** Joins entry {@code last} to its successor again. */
    void joinAfter(int last) {
        if (last + 1 < length) {
            first.set(ValueLayout.JAVA_LONG, last * WR_SIZE + NEXT, first.address() + (last + 1) * WR_SIZE);
        }
    }

    /** The index of the entry {@code bad_wr} points at after a failed call. */
    int badIndex() {
        return (int) ((bad.get(ValueLayout.JAVA_LONG, 0) - first.address()) / WR_SIZE);
    }

    /** The {@code wr_id} written into entry {@code i}. */
    long rawId(int i) {
        return (long) ID.get(first, i * WR_SIZE);
    }
}
