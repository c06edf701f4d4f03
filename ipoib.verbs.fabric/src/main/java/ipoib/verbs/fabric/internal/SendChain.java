package ipoib.verbs.fabric.internal;

import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.VarHandle;

/** The chain of UD {@code ibv_send_wr}s (signaled sends) a send list is posted through. */
final class SendChain extends WorkRequestChain {
    private static final VarHandle OPCODE = Structs.field(Structs.IBV_SEND_WR, "opcode");
    private static final VarHandle FLAGS = Structs.field(Structs.IBV_SEND_WR, "send_flags");
    private static final VarHandle AH = Structs.field(Structs.IBV_SEND_WR, "wr.ud.ah");
    private static final VarHandle QPN = Structs.field(Structs.IBV_SEND_WR, "wr.ud.remote_qpn");
    private static final VarHandle QKEY = Structs.field(Structs.IBV_SEND_WR, "wr.ud.remote_qkey");

    SendChain(Arena arena, int length) {
        super(arena, Structs.IBV_SEND_WR, length);
        for (int i = 0; i < length; i++) {
            OPCODE.set(first, i * wrSize, Consts.IBV_WR_SEND);
            FLAGS.set(first, i * wrSize, Consts.IBV_SEND_SIGNALED);
        }
    }

    void set(int i, long rawId, long address, int octets, int lkey, MemorySegment ah, int remoteQpn, int remoteQkey) {
        setIdAndBuffer(i, rawId, address, octets, lkey);
        long at = i * wrSize;
        AH.set(first, at, ah);
        QPN.set(first, at, remoteQpn);
        QKEY.set(first, at, remoteQkey);
    }
}
