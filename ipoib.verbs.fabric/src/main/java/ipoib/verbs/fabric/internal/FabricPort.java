package ipoib.verbs.fabric.internal;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.Rate;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CmTransport;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcQueuePairConfig;
import ipoib.api.verbs.SharedReceiveQueue;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/** A port of an opened HCA. Attribute and table queries go to the driver every time. */
final class FabricPort implements Port {
    private static final ValueLayout.OfShort BE16 = ValueLayout.JAVA_SHORT.withOrder(ByteOrder.BIG_ENDIAN);

    final FabricDevice device;
    private final int number;
    private final List<Consumer<PortEvent>> listeners = new CopyOnWriteArrayList<>();
    private final Object subnetLock = new Object();
    private UmadTransport transport;
    private SubnetAdministrator subnetAdministrator;

    FabricPort(FabricDevice device, int number) {
        this.device = device;
        this.number = number;
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public int number() {
        return number;
    }

    /** The raw port attributes: through verbs_context.query_port when the context has it. */
    private MemorySegment query(Arena a) {
        MemorySegment attr = a.allocate(Structs.IBV_PORT_ATTR);
        int rc;
        try {
            rc = device.ops.queryPortEx != null
                    ? (int) device.ops.queryPortEx.invokeExact(device.context, (byte) number, attr,
                            Structs.IBV_PORT_ATTR.byteSize())
                    : (int) device.ibv.queryPortCompat.invokeExact(device.context, (byte) number, attr);
        } catch (Throwable t) {
            throw new VerbsException("ibv_query_port(" + this + ") failed", 0, t);
        }
        if (rc != 0) {
            throw new VerbsException("ibv_query_port(" + this + ") failed: " + Native.describeErrno(rc), rc, null);
        }
        return attr;
    }

    @Override
    public PortAttributes attributes() {
        device.checkOpen("query port");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment attr = query(a);
            int gidLen = u32(attr, "gid_tbl_len");
            long prefix = gidLen > 0 ? gid(0).prefix() : 0L;
            return new PortAttributes(state(u32(attr, "state")), new Lid(u16(attr, "lid")), u8(attr, "lmc") & 7,
                    new Lid(u16(attr, "sm_lid")), u8(attr, "sm_sl") & 0xF, mtu(u32(attr, "active_mtu")),
                    mtu(u32(attr, "max_mtu")), rate(u8(attr, "active_width"), u8(attr, "active_speed")), prefix,
                    gidLen, u16(attr, "pkey_tbl_len"));
        }
    }

    @Override
    public long qkeyViolations() {
        device.checkOpen("query port");
        try (Arena a = Arena.ofConfined()) {
            return Integer.toUnsignedLong(u32(query(a), "qkey_viol_cntr"));
        }
    }

    /**
     * The driver's count of datagrams dropped for want of a posted receive buffer: mlx5's
     * {@code out_of_buffer} in {@code /sys/class/infiniband/DEVICE/ports/N/hw_counters} (the
     * counter set of the port, which the kernel's queue pairs share); -1 where the driver has none.
     */
    @Override
    public long receiveBufferDrops() {
        java.nio.file.Path counter = java.nio.file.Path.of("/sys/class/infiniband", device.name(), "ports",
                Integer.toString(number), "hw_counters", "out_of_buffer");
        try {
            return Long.parseLong(java.nio.file.Files.readString(counter).trim());
        } catch (java.io.IOException | NumberFormatException absent) {
            return -1;
        }
    }

    /** The link layer (1 InfiniBand, 2 Ethernet), for the shell. */
    int linkLayer() {
        try (Arena a = Arena.ofConfined()) {
            return u8(query(a), "link_layer");
        }
    }

    private static int u32(MemorySegment s, String member) {
        return s.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_PORT_ATTR, member));
    }

    private static int u16(MemorySegment s, String member) {
        return Short.toUnsignedInt(s.get(ValueLayout.JAVA_SHORT, Structs.offset(Structs.IBV_PORT_ATTR, member)));
    }

    private static int u8(MemorySegment s, String member) {
        return Byte.toUnsignedInt(s.get(ValueLayout.JAVA_BYTE, Structs.offset(Structs.IBV_PORT_ATTR, member)));
    }

    static PortState state(int ibvPortState) {
        if (ibvPortState == Consts.IBV_PORT_ACTIVE || ibvPortState == Consts.IBV_PORT_ACTIVE_DEFER) {
            return PortState.ACTIVE; // ACTIVE_DEFER: still active, about to leave it
        } else if (ibvPortState == Consts.IBV_PORT_ARMED) {
            return PortState.ARMED;
        } else if (ibvPortState == Consts.IBV_PORT_INIT) {
            return PortState.INIT;
        }
        return PortState.DOWN;
    }

    static IbMtu mtu(int ibvMtu) {
        return ibvMtu >= Consts.IBV_MTU_256 && ibvMtu <= Consts.IBV_MTU_4096 ? IbMtu.fromCode(ibvMtu) : IbMtu.MTU_256;
    }

    /** Gb/s per lane (in tenths) of ibv_port_attr.active_speed: SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR. */
    private static final int[][] SPEEDS = {{1, 25}, {2, 50}, {4, 100}, {8, 100}, {16, 140}, {32, 250}, {64, 500},
            {128, 1000}, {256, 2000}};
    /** Lanes of ibv_port_attr.active_width: 1x, 4x, 8x, 12x, 2x. */
    private static final int[][] WIDTHS = {{1, 1}, {2, 4}, {4, 8}, {8, 12}, {16, 2}};
    /** Tenths of Gb/s of each IBA rate code, 2..18 (IBA 15.2.5.16). */
    private static final int[] RATE_TENTHS = {0, 0, 25, 100, 300, 50, 200, 400, 600, 800, 1200, 140, 560, 1120, 1680,
            250, 1000, 2000, 3000};

    /** The IBA rate of width x speed: the exact code, else the fastest not above it. */
    static Rate rate(int activeWidth, int activeSpeed) {
        int lanes = lookup(WIDTHS, activeWidth);
        int perLane = lookup(SPEEDS, activeSpeed);
        int total = lanes * perLane;
        int best = 2;
        for (int code = 2; code < RATE_TENTHS.length; code++) {
            if (RATE_TENTHS[code] <= total && RATE_TENTHS[code] > RATE_TENTHS[best]) {
                best = code;
            }
        }
        return Rate.fromCode(best);
    }

    private static int lookup(int[][] table, int code) {
        for (int[] row : table) {
            if (row[0] == code) {
                return row[1];
            }
        }
        return 0;
    }

    @Override
    public Gid gid(int index) {
        device.checkOpen("query GID");
        try (Arena a = Arena.ofConfined()) {
            MemorySegment gid = a.allocate(Structs.IBV_GID);
            int rc = (int) device.ibv.queryGid.invokeExact(device.context, (byte) number, index, gid);
            if (rc != 0) {
                // ibv_query_gid returns -1, not an errno: say what is likely wrong instead.
                throw new VerbsException("ibv_query_gid(" + this + ", index " + index + ") failed; the GID table has "
                        + u32(query(a), "gid_tbl_len") + " entries");
            }
            return Gid.fromBytes(gid.toArray(ValueLayout.JAVA_BYTE));
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("ibv_query_gid failed", 0, t);
        }
    }

    @Override
    public PKeyTable pkeyTable() {
        device.checkOpen("query P_Key table");
        try (Arena a = Arena.ofConfined()) {
            int length = u16(query(a), "pkey_tbl_len");
            MemorySegment pkey = a.allocate(ValueLayout.JAVA_SHORT);
            int[] entries = new int[length];
            for (int i = 0; i < length; i++) {
                int rc = (int) device.ibv.queryPkey.invokeExact(device.context, (byte) number, i, pkey);
                if (rc != 0) {
                    throw new VerbsException("ibv_query_pkey(" + this + ", index " + i + " of " + length
                            + ") failed");
                }
                entries[i] = Short.toUnsignedInt(pkey.get(BE16, 0)); // __be16
            }
            return PKeyTable.of(entries);
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("ibv_query_pkey failed", 0, t);
        }
    }

    @Override
    public AutoCloseable addEventListener(Consumer<PortEvent> listener) {
        if (listener == null) {
            throw new IllegalArgumentException("listener must not be null");
        }
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    /** Delivers an event to the listeners (on the async event thread); their failures are logged. */
    void raise(PortEvent.Type type) {
        UmadTransport t;
        synchronized (subnetLock) {
            t = transport;
        }
        if (t != null) {
            t.portChanged();
        }
        PortEvent event = new PortEvent(this, type);
        for (Consumer<PortEvent> l : listeners) {
            try {
                l.accept(event);
            } catch (RuntimeException e) {
                device.log.warn("port event listener failed on " + event.type() + " of " + this, e);
            }
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        device.checkOpen("create completion queue");
        if (capacity < 1 || capacity > 65536) {
            throw new VerbsException("create completion queue: invalid capacity '" + capacity + "': allowed 1..65536");
        }
        if (capacity > device.limits.maxCqe()) {
            throw new VerbsException("create completion queue: capacity " + capacity + " exceeds the device's max_cqe "
                    + device.limits.maxCqe());
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment channel = (MemorySegment) device.ibv.createCompChannel.invokeExact(errno, device.context);
            if (channel.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_create_comp_channel failed: " + Native.describeErrno(e), e, null);
            }
            MemorySegment cq = (MemorySegment) device.ibv.createCq.invokeExact(errno, device.context, capacity,
                    MemorySegment.NULL, channel, 0);
            if (cq.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                device.call("ibv_destroy_comp_channel", () -> (int) device.ibv.destroyCompChannel.invokeExact(channel));
                throw new VerbsException("ibv_create_cq(" + capacity + ") failed: " + Native.describeErrno(e), e, null);
            }
            FabricCompletionQueue q;
            try {
                q = new FabricCompletionQueue(device, channel, cq);
            } catch (RuntimeException e) {
                device.call("ibv_destroy_cq", () -> (int) device.ibv.destroyCq.invokeExact(cq));
                device.call("ibv_destroy_comp_channel", () -> (int) device.ibv.destroyCompChannel.invokeExact(channel));
                throw e;
            }
            device.register(q);
            return q;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("create completion queue failed", 0, t);
        }
    }

    @Override
    public UdQueuePair createUdQueuePair(UdQueuePairConfig config) {
        device.checkOpen("create UD QP");
        PortAttributes attrs = attributes();
        if (!attrs.isActive()) {
            throw new VerbsException("create UD QP: port " + this + " is " + attrs.state() + ", not ACTIVE");
        }
        PKeyTable pkeys = pkeyTable();
        if (pkeys.get(config.pkeyIndex()).isEmpty()) {
            throw new VerbsException("create UD QP: P_Key index " + config.pkeyIndex()
                    + " is not a valid entry of port " + this + " (table " + pkeys + ")");
        }
        if (config.qkey().isControlled() && !config.privileged()) {
            throw new VerbsException("create UD QP: Q_Key " + config.qkey()
                    + " is controlled (high bit set); only a privileged queue pair may use it");
        }
        if (!(config.sendCompletionQueue() instanceof FabricCompletionQueue sendCq) || sendCq.device != device
                || !(config.receiveCompletionQueue() instanceof FabricCompletionQueue recvCq) || recvCq.device != device
                || sendCq.isClosed() || recvCq.isClosed()) {
            throw new VerbsException("create UD QP: completion queues must be open queues of device " + device.name());
        }
        int maxWr = device.limits.maxQpWr();
        if (config.sendQueueDepth() > maxWr || config.receiveQueueDepth() > maxWr) {
            throw new VerbsException("create UD QP: queue depths " + config.sendQueueDepth() + "/"
                    + config.receiveQueueDepth() + " exceed the device's max_qp_wr " + maxWr);
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment init = a.allocate(Structs.IBV_QP_INIT_ATTR);
            set(init, Structs.IBV_QP_INIT_ATTR, "send_cq", sendCq.cq);
            set(init, Structs.IBV_QP_INIT_ATTR, "recv_cq", recvCq.cq);
            setInt(init, Structs.IBV_QP_INIT_ATTR, "cap.max_send_wr", config.sendQueueDepth());
            setInt(init, Structs.IBV_QP_INIT_ATTR, "cap.max_recv_wr", config.receiveQueueDepth());
            setInt(init, Structs.IBV_QP_INIT_ATTR, "cap.max_send_sge", 1);
            setInt(init, Structs.IBV_QP_INIT_ATTR, "cap.max_recv_sge", 1);
            setInt(init, Structs.IBV_QP_INIT_ATTR, "qp_type", Consts.IBV_QPT_UD);
            setInt(init, Structs.IBV_QP_INIT_ATTR, "sq_sig_all", 1);
            MemorySegment qp = (MemorySegment) device.ibv.createQp.invokeExact(errno, device.pd, init);
            if (qp.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_create_qp(UD) on " + this + " failed: " + Native.describeErrno(e), e, null);
            }
            try {
                toRts(a, qp, config);
            } catch (RuntimeException e) {
                device.call("ibv_destroy_qp", () -> (int) device.ibv.destroyQp.invokeExact(qp));
                throw e;
            }
            FabricQueuePair q = new FabricQueuePair(this, qp, sendCq, recvCq, config.sendQueueDepth(),
                    config.receiveQueueDepth(), config.qkey(), config.privileged());
            sendCq.attach(q);
            if (recvCq != sendCq) {
                recvCq.attach(q);
            }
            device.register(q);
            return q;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("create UD QP failed", 0, t);
        }
    }

    /** RESET → INIT (P_Key index, port, Q_Key) → RTR → RTS (SQ PSN), as a UD QP needs (IBA 10.3). */
    private void toRts(Arena a, MemorySegment qp, UdQueuePairConfig config) throws Throwable {
        MemorySegment attr = a.allocate(Structs.IBV_QP_ATTR);
        setInt(attr, Structs.IBV_QP_ATTR, "qp_state", Consts.IBV_QPS_INIT);
        attr.set(ValueLayout.JAVA_SHORT, Structs.offset(Structs.IBV_QP_ATTR, "pkey_index"), (short) config.pkeyIndex());
        attr.set(ValueLayout.JAVA_BYTE, Structs.offset(Structs.IBV_QP_ATTR, "port_num"), (byte) number);
        setInt(attr, Structs.IBV_QP_ATTR, "qkey", config.qkey().value());
        modify(qp, attr, Consts.IBV_QP_STATE | Consts.IBV_QP_PKEY_INDEX | Consts.IBV_QP_PORT | Consts.IBV_QP_QKEY,
                "INIT");
        attr.fill((byte) 0);
        setInt(attr, Structs.IBV_QP_ATTR, "qp_state", Consts.IBV_QPS_RTR);
        modify(qp, attr, Consts.IBV_QP_STATE, "RTR");
        attr.fill((byte) 0);
        setInt(attr, Structs.IBV_QP_ATTR, "qp_state", Consts.IBV_QPS_RTS);
        setInt(attr, Structs.IBV_QP_ATTR, "sq_psn", 0);
        modify(qp, attr, Consts.IBV_QP_STATE | Consts.IBV_QP_SQ_PSN, "RTS");
    }

    private void modify(MemorySegment qp, MemorySegment attr, int mask, String state) throws Throwable {
        int rc = (int) device.ibv.modifyQp.invokeExact(qp, attr, mask);
        if (rc != 0) {
            throw new VerbsException("ibv_modify_qp(" + state + ") on " + this + " failed: "
                    + Native.describeErrno(Math.abs(rc)), Math.abs(rc), null);
        }
    }

    static void set(MemorySegment s, java.lang.foreign.MemoryLayout layout, String member, MemorySegment v) {
        s.set(ValueLayout.ADDRESS, Structs.offset(layout, member), v);
    }

    static void setInt(MemorySegment s, java.lang.foreign.MemoryLayout layout, String member, int v) {
        s.set(ValueLayout.JAVA_INT, Structs.offset(layout, member), v);
    }

    @Override
    public AddressHandle createAddressHandle(AddressVector vector) {
        device.checkOpen("create address handle");
        if (vector == null) {
            throw new VerbsException("create address handle: vector must not be null");
        }
        try (Arena a = Arena.ofConfined()) {
            MemorySegment errno = Native.errnoSegment(a);
            MemorySegment attr = a.allocate(Structs.IBV_AH_ATTR);
            fillAddressVector(attr, 0, vector, number);
            MemorySegment ah = (MemorySegment) device.ibv.createAh.invokeExact(errno, device.pd, attr);
            if (ah.equals(MemorySegment.NULL)) {
                int e = Native.errno(errno);
                throw new VerbsException("ibv_create_ah(" + vector + ") on " + this + " failed: "
                        + Native.describeErrno(e), e, null);
            }
            FabricAddressHandle h = new FabricAddressHandle(device, ah, vector);
            device.register(h);
            return h;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("create address handle failed", 0, t);
        }
    }

    /**
     * Writes an address vector into a {@code struct ibv_ah_attr} at {@code base} of {@code attr}
     * (an address handle's, or the {@code ah_attr} of an RC queue pair's RTR attributes).
     */
    static void fillAddressVector(MemorySegment attr, long base, AddressVector vector, int port) {
        var l = Structs.IBV_AH_ATTR;
        attr.set(ValueLayout.JAVA_SHORT, base + Structs.offset(l, "dlid"), (short) vector.destinationLid().value());
        attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "sl"), (byte) vector.serviceLevel());
        // 0 is IBV_RATE_MAX: the port's rate. The other ibv_rate values equal the IBA codes.
        attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "static_rate"),
                (byte) (vector.rate() == null ? 0 : vector.rate().code()));
        attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "is_global"), (byte) (vector.global() ? 1 : 0));
        attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "port_num"), (byte) port);
        if (vector.global()) {
            MemorySegment.copy(vector.destinationGid().toBytes(), 0, attr, ValueLayout.JAVA_BYTE,
                    base + Structs.offset(l, "grh.dgid"), 16);
            attr.set(ValueLayout.JAVA_INT, base + Structs.offset(l, "grh.flow_label"), vector.flowLabel());
            attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "grh.sgid_index"), (byte) vector.sourceGidIndex());
            attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "grh.hop_limit"), (byte) vector.hopLimit());
            attr.set(ValueLayout.JAVA_BYTE, base + Structs.offset(l, "grh.traffic_class"), (byte) vector.trafficClass());
        }
    }

    @Override
    public ProviderStatus connectedModeSupport() {
        return CmClassProbe.connectedModeSupport(this);
    }

    /**
     * No CM MADs from this provider yet; the exception carries the reason connected mode cannot
     * run here ({@link CmClassProbe}: the kernel's ib_cm holds the class, or the class is free but
     * there is no CM transport over umad), which the link shows.
     */
    @Override
    public CmTransport cmTransport() {
        throw new VerbsException(connectedModeSupport().reason());
    }

    @Override
    public RcQueuePair createRcQueuePair(RcQueuePairConfig config) {
        return RcFactory.createRcQueuePair(this, config);
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int capacity) {
        return RcFactory.createSharedReceiveQueue(this, capacity);
    }

    @Override
    public MadTransport madTransport() {
        return transport();
    }

    private UmadTransport transport() {
        device.checkOpen("MAD transport");
        synchronized (subnetLock) {
            if (transport == null) {
                transport = UmadTransport.open(device.runtime.umad(), device.name(), number, device.log);
            }
            return transport;
        }
    }

    @Override
    public SubnetAdministrator subnetAdministrator() {
        UmadTransport t = transport();
        synchronized (subnetLock) {
            if (subnetAdministrator == null) {
                subnetAdministrator = device.runtime.subnetAdministrator(t);
            }
            return subnetAdministrator;
        }
    }

    /** Closes the MAD transport (on device close). */
    void closeSubnetAccess() {
        UmadTransport t;
        SubnetAdministrator sa;
        synchronized (subnetLock) {
            t = transport;
            sa = subnetAdministrator;
            transport = null;
            subnetAdministrator = null;
        }
        if (sa != null) {
            device.runtime.forget(sa);
        }
        if (t != null) {
            t.close();
        }
    }

    @Override
    public String toString() {
        return device.name() + "/" + number;
    }
}
