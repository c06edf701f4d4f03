package ipoib.verbs.fabric.internal;

import ipoib.api.Guid;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.RcQueuePairEvent;
import ipoib.api.verbs.VerbsException;
import ipoib.runtime.Threads;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Ibv;
import ipoib.verbs.fabric.ffi.IbvVerbs;
import ipoib.verbs.fabric.ffi.IbvContextOps;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * An opened HCA: its {@code ibv_context}, one protection domain for every resource, the context's
 * bound inline verbs, the ports, and a daemon thread that turns async events into
 * {@link PortEvent}s. Closing releases every resource in dependency order: queue pairs, address
 * handles, completion queues, memory regions, MAD transports, PD, context.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricDevice implements Device {
    private static final VarHandle EV_TYPE = Structs.field(Structs.IBV_ASYNC_EVENT, "event_type");
    private static final VarHandle EV_PORT = Structs.field(Structs.IBV_ASYNC_EVENT, "element.port_num");
    private static final VarHandle EV_QP = Structs.field(Structs.IBV_ASYNC_EVENT, "element.qp");

    /** A native call that returns 0 or an errno. */
    @FunctionalInterface
    interface IntCall {
        int call() throws Throwable;
    }

    /** Attributes of ibv_query_device that the provider checks requests against. */
    record Limits(String firmware, int vendorId, int vendorPartId, int maxQp, int maxQpWr, int maxCq, int maxCqe,
                  int maxMr, int maxAh, int maxMcastGroups, int maxMcastQpAttach, int maxPkeys, int ports,
                  int maxSrq, int maxSrqWr) {}

    final FabricRuntime runtime;
    final IbvVerbs ibv;
    final FabricLog log;
    final MemorySegment context;
    final IbvContextOps ops;
    final MemorySegment pd;
    final Limits limits;
    private final String name;
    private final Guid nodeGuid;
    private final List<Port> ports;
    private final Set<FabricQueuePair> queuePairs = ConcurrentHashMap.newKeySet();
    private final Set<FabricRcQueuePair> rcQueuePairs = ConcurrentHashMap.newKeySet();
    private final Set<FabricSharedReceiveQueue> sharedReceiveQueues = ConcurrentHashMap.newKeySet();
    private final Set<FabricAddressHandle> addressHandles = ConcurrentHashMap.newKeySet();
    private final Set<FabricCompletionQueue> completionQueues = ConcurrentHashMap.newKeySet();
    private final Set<FabricMemoryRegion> memoryRegions = ConcurrentHashMap.newKeySet();
    private final FdWaiter asyncWaiter;
    private final Thread asyncThread;
    private volatile boolean closed;
    private volatile boolean fatal;

    private FabricDevice(FabricRuntime runtime, String name, Guid nodeGuid, MemorySegment context, MemorySegment pd,
                         Limits limits) {
        this.runtime = runtime;
        this.ibv = runtime.ibv().verbs();
        this.log = runtime.log();
        this.name = name;
        this.nodeGuid = nodeGuid;
        this.context = context;
        this.pd = pd;
        this.limits = limits;
        this.ops = IbvContextOps.bind(context);
        List<Port> list = new ArrayList<>();
        for (int p = 1; p <= limits.ports(); p++) {
            list.add(new FabricPort(this, p));
        }
        this.ports = Collections.unmodifiableList(list);
        this.asyncWaiter = new FdWaiter(context.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_CONTEXT,
                "async_fd")));
        this.asyncThread = Threads.create("ipoib-fabric-async-" + name, true, this::pumpEvents);
    }

    /**
     * Opens a device of the list returned by ibv_get_device_list.
     *
     * @throws VerbsException naming the device and the failing verb
     */
    static FabricDevice open(FabricRuntime runtime, MemorySegment device) {
        Ibv library = runtime.ibv();
        String name = "?";
        try (Arena a = Arena.ofConfined()) {
            name = Native.string((MemorySegment) library.getDeviceName.invokeExact(device));
            IbvVerbs ibv = library.verbs();
            long guid = (long) ibv.getDeviceGuid.invokeExact(device);
            // __be64 returned in a register: the octets are in network order.
            Guid nodeGuid = new Guid(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Long.reverseBytes(guid) : guid);
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment ctx = (MemorySegment) ibv.openDevice.invokeExact(errno, device);
            if (ctx.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_open_device(" + name + ") failed: " + Native.describeErrno(e)
                        + permissionHint(e), e, null);
            }
            ctx = ctx.reinterpret(Structs.IBV_CONTEXT.byteSize());
            MemorySegment attr = a.allocate(Structs.IBV_DEVICE_ATTR);
            int rc = (int) ibv.queryDevice.invokeExact(ctx, attr);
            if (rc != 0) {
                int ignored = (int) ibv.closeDevice.invokeExact(ctx);
                throw new VerbsException("ibv_query_device(" + name + ") failed: " + Native.describeErrno(rc), rc, null);
            }
            Limits limits = limits(attr);
            MemorySegment pd = (MemorySegment) ibv.allocPd.invokeExact(errno, ctx);
            if (pd.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                int ignored = (int) ibv.closeDevice.invokeExact(ctx);
                throw new VerbsException("ibv_alloc_pd(" + name + ") failed: " + Native.describeErrno(e), e, null);
            }
            FabricDevice d;
            try {
                d = new FabricDevice(runtime, name, nodeGuid, ctx, pd, limits);
            } catch (RuntimeException e) {
                int ignored = (int) ibv.deallocPd.invokeExact(pd);
                ignored = (int) ibv.closeDevice.invokeExact(ctx);
                throw e;
            }
            d.asyncThread.start();
            return d;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("opening device " + name + " failed: " + t, 0, t);
        }
    }

    private static String permissionHint(int errno) {
        return errno == 13 || errno == 1 ? " (check the permissions of /dev/infiniband/uverbs*)" : "";
    }

    private static Limits limits(MemorySegment attr) {
        byte[] fw = attr.asSlice(Structs.offset(Structs.IBV_DEVICE_ATTR, "fw_ver"), 64).toArray(ValueLayout.JAVA_BYTE);
        int len = 0;
        while (len < fw.length && fw[len] != 0) {
            len++;
        }
        return new Limits(new String(fw, 0, len, java.nio.charset.StandardCharsets.US_ASCII),
                i(attr, "vendor_id"), i(attr, "vendor_part_id"), i(attr, "max_qp"), i(attr, "max_qp_wr"),
                i(attr, "max_cq"), i(attr, "max_cqe"), i(attr, "max_mr"), i(attr, "max_ah"), i(attr, "max_mcast_grp"),
                i(attr, "max_mcast_qp_attach"),
                Short.toUnsignedInt(attr.get(ValueLayout.JAVA_SHORT, Structs.offset(Structs.IBV_DEVICE_ATTR, "max_pkeys"))),
                Byte.toUnsignedInt(attr.get(ValueLayout.JAVA_BYTE, Structs.offset(Structs.IBV_DEVICE_ATTR,
                        "phys_port_cnt"))), i(attr, "max_srq"), i(attr, "max_srq_wr"));
    }

    private static int i(MemorySegment attr, String member) {
        return attr.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_DEVICE_ATTR, member));
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Guid nodeGuid() {
        return nodeGuid;
    }

    @Override
    public List<Port> ports() {
        return ports;
    }

    boolean isFatal() {
        return fatal;
    }

    void checkOpen(String what) {
        if (closed) {
            throw new VerbsException(what + ": device " + name + " is closed");
        }
        if (fatal) {
            throw new VerbsException(what + ": device " + name + " reported a fatal error");
        }
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment) {
        checkOpen("register memory");
        if (segment == null || !segment.isNative() || segment.byteSize() == 0) {
            throw new VerbsException("register memory: needs a non-empty native segment, got " + segment);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment mr = (MemorySegment) ibv.regMr.invokeExact(errno, pd, segment, segment.byteSize(),
                    Consts.IBV_ACCESS_LOCAL_WRITE);
            if (mr.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_reg_mr(" + segment.byteSize() + " octets) on " + name + " failed: "
                        + Native.describeErrno(e) + (e == Consts.ENOMEM || e == 1 || e == 13
                                ? " (check the locked-memory limit, ulimit -l)" : ""), e, null);
            }
            FabricMemoryRegion region = new FabricMemoryRegion(this, segment, mr);
            memoryRegions.add(region);
            return region;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("ibv_reg_mr failed", 0, t);
        }
    }

    void register(FabricQueuePair qp) {
        queuePairs.add(qp);
    }

    void register(FabricRcQueuePair qp) {
        rcQueuePairs.add(qp);
    }

    void register(FabricSharedReceiveQueue srq) {
        sharedReceiveQueues.add(srq);
    }

    void closeRcQueuePair(FabricRcQueuePair qp) {
        if (rcQueuePairs.remove(qp)) {
            qp.destroy();
        }
    }

    void closeSharedReceiveQueue(FabricSharedReceiveQueue srq) {
        if (srq.inUse()) {
            throw new VerbsException("close shared receive queue: RC queue pairs of device " + name
                    + " still use it; close them first");
        }
        if (sharedReceiveQueues.remove(srq)) {
            srq.destroy();
        }
    }

    void register(FabricCompletionQueue cq) {
        completionQueues.add(cq);
    }

    void register(FabricAddressHandle ah) {
        addressHandles.add(ah);
    }

    void closeQueuePair(FabricQueuePair qp) {
        if (queuePairs.remove(qp)) {
            qp.destroy();
        }
    }

    void closeAddressHandle(FabricAddressHandle ah) {
        if (addressHandles.remove(ah)) {
            ah.destroy();
        }
    }

    void closeMemoryRegion(FabricMemoryRegion mr) {
        if (memoryRegions.remove(mr)) {
            mr.destroy();
        }
    }

    void closeCompletionQueue(FabricCompletionQueue cq) {
        if (cq.inUse()) {
            throw new VerbsException("close completion queue: queue pairs of device " + name
                    + " still use it; close them first");
        }
        if (completionQueues.remove(cq)) {
            cq.destroy();
        }
    }

    /** Runs a destroy/free verb; a failure is logged, never thrown (it runs on close paths). */
    void call(String what, IntCall call) {
        try {
            int rc = call.call();
            if (rc != 0) {
                log.warn(what + " on " + name + " failed: " + Native.describeErrno(Math.abs(rc)), null);
            }
        } catch (Throwable t) {
            log.warn(what + " on " + name + " failed", t);
        }
    }

    /** The async event thread: poll(2) the async fd, then ibv_get_async_event will not block. */
    private void pumpEvents() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment event = a.allocate(Structs.IBV_ASYNC_EVENT);
            MemorySegment errno = Native.errnoSegment(a);
            while (!closed) {
                FdWaiter.Result r;
                try {
                    r = asyncWaiter.await(1000);
                } catch (VerbsException e) {
                    log.error("async events of " + name + ": " + e.getMessage() + "; no more port events", e);
                    return;
                }
                if (r != FdWaiter.Result.READY || closed) {
                    continue;
                }
                int rc = (int) ibv.getAsyncEvent.invokeExact(errno, context, event);
                if (rc != 0) {
                    int e = Native.errno(errno);
                    if (e == Consts.EAGAIN || e == Consts.EINTR) {
                        continue;
                    }
                    log.error("ibv_get_async_event(" + name + ") failed: " + Native.describeErrno(e)
                            + "; no more port events", null);
                    return;
                }
                int type = (int) EV_TYPE.get(event, 0L);
                int portNum = (int) EV_PORT.get(event, 0L);
                MemorySegment qp = (MemorySegment) EV_QP.get(event, 0L);
                ibv.ackAsyncEvent.invokeExact(event);
                dispatch(type, portNum, qp);
            }
        } catch (Throwable t) {
            log.error("async event thread of " + name + " failed; no more port events", t);
        }
    }

    private void dispatch(int type, int portNum, MemorySegment qpPointer) {
        PortEvent.Type portType = portEventType(type);
        if (portType == PortEvent.Type.DEVICE_FATAL) {
            fatal = true;
            log.error("device " + name + " reported IBV_EVENT_DEVICE_FATAL; its resources are gone", null);
            for (Port p : ports) {
                ((FabricPort) p).raise(portType);
            }
        } else if (portType != null) {
            if (portNum >= 1 && portNum <= ports.size()) {
                ((FabricPort) ports.get(portNum - 1)).raise(portType);
            }
        } else if (rcEventType(type) != null && dispatchRc(rcEventType(type), qpPointer)) {
            return;
        } else if (type == Consts.IBV_EVENT_QP_FATAL || type == Consts.IBV_EVENT_QP_REQ_ERR
                || type == Consts.IBV_EVENT_QP_ACCESS_ERR) {
            for (FabricQueuePair qp : queuePairs) {
                if (qp.qp.address() == qpPointer.address()) {
                    qp.markError();
                    log.warn("queue pair " + qp.qpn() + " on " + name + " went to ERROR (async event " + type + ")",
                            null);
                }
            }
        } else if (type == Consts.IBV_EVENT_SRQ_ERR) {
            // The SRQ failed: its queue pairs' receives end in ERROR and flush; say which device.
            log.warn("a shared receive queue of " + name + " failed (IBV_EVENT_SRQ_ERR)", null);
        } else {
            log.info("async event " + type + " on " + name + " ignored");
        }
    }

    /** Hands a QP event to the RC queue pair it names; false when no RC queue pair has that pointer. */
    private boolean dispatchRc(RcQueuePairEvent.Type type, MemorySegment qpPointer) {
        for (FabricRcQueuePair qp : rcQueuePairs) {
            if (qp.qp.address() == qpPointer.address()) {
                if (type != RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED
                        && type != RcQueuePairEvent.Type.LAST_WQE_REACHED) {
                    log.warn(qp + " went to ERROR (async event " + type + ")", null);
                }
                qp.raise(type);
                return true;
            }
        }
        return false;
    }

    /**
     * The RC queue pair event of an ibv_event_type, or null. Path migration (IBV_EVENT_PATH_MIG,
     * PATH_MIG_ERR) cannot happen: no alternate path is loaded (IBV_QP_ALT_PATH is never set), as
     * IPoIB-CM sets none; SQ_DRAINED needs SQD, which is never requested.
     */
    static RcQueuePairEvent.Type rcEventType(int type) {
        if (type == Consts.IBV_EVENT_COMM_EST) {
            return RcQueuePairEvent.Type.COMMUNICATION_ESTABLISHED;
        } else if (type == Consts.IBV_EVENT_QP_LAST_WQE_REACHED) {
            return RcQueuePairEvent.Type.LAST_WQE_REACHED;
        } else if (type == Consts.IBV_EVENT_QP_FATAL) {
            return RcQueuePairEvent.Type.FATAL;
        } else if (type == Consts.IBV_EVENT_QP_REQ_ERR) {
            return RcQueuePairEvent.Type.REQUEST_ERROR;
        } else if (type == Consts.IBV_EVENT_QP_ACCESS_ERR) {
            return RcQueuePairEvent.Type.ACCESS_ERROR;
        }
        return null;
    }

    /** The port event of an ibv_event_type, or null for non-port events. */
    static PortEvent.Type portEventType(int type) {
        if (type == Consts.IBV_EVENT_PORT_ACTIVE) {
            return PortEvent.Type.PORT_ACTIVE;
        } else if (type == Consts.IBV_EVENT_PORT_ERR) {
            return PortEvent.Type.PORT_ERROR;
        } else if (type == Consts.IBV_EVENT_LID_CHANGE) {
            return PortEvent.Type.LID_CHANGE;
        } else if (type == Consts.IBV_EVENT_PKEY_CHANGE) {
            return PortEvent.Type.PKEY_CHANGE;
        } else if (type == Consts.IBV_EVENT_SM_CHANGE) {
            return PortEvent.Type.SM_CHANGE;
        } else if (type == Consts.IBV_EVENT_CLIENT_REREGISTER) {
            return PortEvent.Type.CLIENT_REREGISTER;
        } else if (type == Consts.IBV_EVENT_GID_CHANGE) {
            return PortEvent.Type.GID_CHANGE;
        } else if (type == Consts.IBV_EVENT_DEVICE_FATAL) {
            return PortEvent.Type.DEVICE_FATAL;
        }
        return null;
    }

    /** Releases everything, in dependency order. Never throws. */
    void close() {
        if (closed) {
            return;
        }
        closed = true;
        asyncWaiter.wakeup();
        try {
            asyncThread.join(5000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (asyncThread.isAlive()) {
            log.warn("async event thread of " + name + " did not stop; leaving the context open", null);
            return;
        }
        for (FabricQueuePair qp : List.copyOf(queuePairs)) {
            closeQueuePair(qp);
        }
        for (FabricRcQueuePair qp : List.copyOf(rcQueuePairs)) {
            closeRcQueuePair(qp);
        }
        for (FabricSharedReceiveQueue srq : List.copyOf(sharedReceiveQueues)) {
            closeSharedReceiveQueue(srq);
        }
        for (FabricAddressHandle ah : List.copyOf(addressHandles)) {
            closeAddressHandle(ah);
        }
        for (FabricCompletionQueue cq : List.copyOf(completionQueues)) {
            if (completionQueues.remove(cq)) {
                cq.destroy();
            }
        }
        for (FabricMemoryRegion mr : List.copyOf(memoryRegions)) {
            closeMemoryRegion(mr);
        }
        for (Port p : ports) {
            ((FabricPort) p).closeSubnetAccess();
        }
        call("ibv_dealloc_pd", () -> (int) ibv.deallocPd.invokeExact(pd));
        asyncWaiter.close();
        call("ibv_close_device", () -> (int) ibv.closeDevice.invokeExact(context));
    }

    @Override
    public String toString() {
        return name;
    }
}
