package ipoib.verbs.fabric.internal;

import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;

/** The chain of {@code ibv_recv_wr}s a receive list is posted through. */
final class ReceiveChain extends WorkRequestChain {
    ReceiveChain(Arena arena, int length) {
        super(arena, Structs.IBV_RECV_WR, length);
    }

    void set(int i, long rawId, long address, int octets, int lkey) {
        setIdAndBuffer(i, rawId, address, octets, lkey);
    }
}
