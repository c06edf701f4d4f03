package ipoib.verbs.fabric.internal;

import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;

/**
 * A preallocated chain of work requests ({@code ibv_send_wr} or {@code ibv_recv_wr}, one
 * {@code ibv_sge} each) linked through {@code next}, as long as its queue is deep: a list of any
 * length the queue can take goes to the driver in one post call. Per call the chain is cut after
 * the last entry used and joined again afterwards; {@code next} is written as a 64-bit address,
 * so that neither allocates. Guarded by the queue pair's lock of its direction.
 */
abstract class WorkRequestChain {
    static final long SGE_SIZE = Structs.IBV_SGE.byteSize();
    private static final VarHandle SGE_ADDR = Structs.field(Structs.IBV_SGE, "addr");
    private static final VarHandle SGE_LENGTH = Structs.field(Structs.IBV_SGE, "length");
    private static final VarHandle SGE_LKEY = Structs.field(Structs.IBV_SGE, "lkey");

    /** The first work request: what the post call takes. */
    final MemorySegment first;
    final MemorySegment sges;
    /** Where the driver writes {@code bad_wr}. */
    final MemorySegment bad;
    final long wrSize;
    private final long nextOffset;
    private final VarHandle id;
    private final int length;

    WorkRequestChain(Arena arena, StructLayout wr, int length) {
        this.length = length;
        this.wrSize = wr.byteSize();
        this.nextOffset = Structs.offset(wr, "next");
        this.id = Structs.field(wr, "wr_id");
        first = arena.allocate(wr, length);
        sges = arena.allocate(Structs.IBV_SGE, length);
        bad = arena.allocate(ValueLayout.ADDRESS);
        VarHandle sgList = Structs.field(wr, "sg_list");
        VarHandle numSge = Structs.field(wr, "num_sge");
        for (int i = 0; i < length; i++) {
            joinAfter(i);
            sgList.set(first, i * wrSize, sges.asSlice(i * SGE_SIZE));
            numSge.set(first, i * wrSize, 1);
        }
    }

    /** Writes entry {@code i}'s id and its one scatter/gather element. */
    final void setIdAndBuffer(int i, long rawId, long address, int octets, int lkey) {
        long sge = i * SGE_SIZE;
        id.set(first, i * wrSize, rawId);
        SGE_ADDR.set(sges, sge, address);
        SGE_LENGTH.set(sges, sge, octets);
        SGE_LKEY.set(sges, sge, lkey);
    }

    /** Ends the chain after entry {@code last} (for one call). */
    final void cutAfter(int last) {
        first.set(ValueLayout.JAVA_LONG, last * wrSize + nextOffset, 0L);
    }

    /** Joins entry {@code last} to its successor again (the chain's end stays NULL). */
    final void joinAfter(int last) {
        first.set(ValueLayout.JAVA_LONG, last * wrSize + nextOffset,
                last + 1 < length ? first.address() + (last + 1) * wrSize : 0L);
    }

    /** The index of the entry {@code bad_wr} points at after a failed call. */
    final int badIndex() {
        return (int) ((bad.get(ValueLayout.JAVA_LONG, 0) - first.address()) / wrSize);
    }

    /** The {@code wr_id} written into entry {@code i}. */
    final long rawId(int i) {
        return (long) id.get(first, i * wrSize);
    }
}
