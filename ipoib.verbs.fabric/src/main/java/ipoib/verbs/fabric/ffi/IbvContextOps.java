package ipoib.verbs.fabric.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

/**
 * The static inline verbs of {@code verbs.h}, bound once per opened context: each reads a
 * function pointer of the provider driver from {@code ibv_context.ops} (or from the enclosing
 * {@code verbs_context}) exactly as the inline does, and binds a downcall handle to it, so the
 * data path never looks anything up.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class IbvContextOps {
    private static final MethodHandle POLL_CQ = Native.pointerHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, ADDRESS));
    private static final MethodHandle REQ_NOTIFY_CQ = Native.pointerHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle POST = Native.pointerHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS));
    private static final MethodHandle QUERY_PORT_EX = Native.pointerHandle(
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS, JAVA_LONG));

    /** {@code int poll_cq(struct ibv_cq *, int num_entries, struct ibv_wc *)}. */
    public final MethodHandle pollCq;
    /** {@code int req_notify_cq(struct ibv_cq *, int solicited_only)}. */
    public final MethodHandle reqNotifyCq;
    /** {@code int post_send(struct ibv_qp *, struct ibv_send_wr *, struct ibv_send_wr **bad)}. */
    public final MethodHandle postSend;
    /** {@code int post_recv(struct ibv_qp *, struct ibv_recv_wr *, struct ibv_recv_wr **bad)}. */
    public final MethodHandle postRecv;
    /**
     * {@code int post_srq_recv(struct ibv_srq *, struct ibv_recv_wr *, struct ibv_recv_wr **bad)}, or
     * null when the driver has none (then the device offers no shared receive queues).
     */
    public final MethodHandle postSrqRecv;
    /**
     * {@code int query_port(struct ibv_context *, uint8_t, struct ibv_port_attr *, size_t)} of
     * the verbs_context, or null when the context is not extended (then the exported compat
     * {@code ibv_query_port} is used, as the inline does).
     */
    public final MethodHandle queryPortEx;

    private IbvContextOps(MemorySegment context) {
        MemorySegment ctx = context.reinterpret(Structs.IBV_CONTEXT.byteSize());
        pollCq = bind(POLL_CQ, ctx, "ops.poll_cq");
        reqNotifyCq = bind(REQ_NOTIFY_CQ, ctx, "ops.req_notify_cq");
        postSend = bind(POST, ctx, "ops.post_send");
        postRecv = bind(POST, ctx, "ops.post_recv");
        MemorySegment srqRecv = ctx.get(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, "ops.post_srq_recv"));
        postSrqRecv = srqRecv.equals(MemorySegment.NULL) ? null : POST.bindTo(srqRecv);
        queryPortEx = extendedQueryPort(context);
    }

    /**
     * Binds the operations of an open context.
     *
     * @throws IllegalStateException when the driver left one of them NULL
     */
    public static IbvContextOps bind(MemorySegment context) {
        return new IbvContextOps(context);
    }

    private static MethodHandle bind(MethodHandle handle, MemorySegment ctx, String member) {
        MemorySegment fn = ctx.get(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, member));
        if (fn.equals(MemorySegment.NULL)) {
            throw new IllegalStateException("the verbs driver has no " + member);
        }
        return handle.bindTo(fn);
    }

    /** verbs_get_ctx_op(ctx, query_port) of verbs.h. */
    private static MethodHandle extendedQueryPort(MemorySegment context) {
        MemorySegment ctx = context.reinterpret(Structs.IBV_CONTEXT.byteSize());
        // __VERBS_ABI_IS_EXTENDED is (void *) UINTPTR_MAX.
        long abiCompat = ctx.get(ADDRESS, Structs.offset(Structs.IBV_CONTEXT, "abi_compat")).address();
        if (abiCompat != -1L) {
            return null;
        }
        long contextOffset = Structs.offset(Structs.VERBS_CONTEXT, "context");
        MemorySegment vctx = MemorySegment.ofAddress(context.address() - contextOffset)
                .reinterpret(Structs.VERBS_CONTEXT.byteSize());
        long sz = vctx.get(JAVA_LONG, Structs.offset(Structs.VERBS_CONTEXT, "sz"));
        long queryPortOffset = Structs.offset(Structs.VERBS_CONTEXT, "query_port");
        if (sz < Structs.VERBS_CONTEXT.byteSize() - queryPortOffset) {
            return null;
        }
        MemorySegment fn = vctx.get(ADDRESS, queryPortOffset);
        return fn.equals(MemorySegment.NULL) ? null : QUERY_PORT_EX.bindTo(fn);
    }
}
