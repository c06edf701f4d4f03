package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
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
import ipoib.runtime.Counters;
import ipoib.runtime.ThreadCounters;
import java.util.List;
import java.util.OptionalInt;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * A port of a loopback HCA: the verbs face of an HCA port of the subnet model, which holds its
 * LID and its state (the one source of truth the emulated SM, the agents and the data path share).
 */
public final class LoopPort implements Port {
    final LoopDevice device;
    /** The port in the subnet model. */
    final ipoib.verbs.loopback.subnet.Port model;
    private final int number;
    private final Guid guid;
    private final Gid gid0;
    private final CopyOnWriteArrayList<Consumer<PortEvent>> listeners = new CopyOnWriteArrayList<>();
    private final CopyOnWriteIntMap<LoopQueuePair> queuePairs = new CopyOnWriteIntMap<>();
    private final CopyOnWriteIntMap<LoopRcQueuePair> rcQueuePairs = new CopyOnWriteIntMap<>();
    private final RcPortCounters rcCounters = new RcPortCounters();
    private final java.util.concurrent.atomic.LongAdder qkeyViolations = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder receiveBufferDrops = new java.util.concurrent.atomic.LongAdder();
    /**
     * Packets this port sent and those of them delivered, counted here rather than fabric-wide:
     * the thread sending through a port writes only that port's counters, so independent ports
     * share no counter line ({@link FabricCounters} sums them when read).
     */
    final ThreadCounters packets = new ThreadCounters(new Counters());
    static final int SENT = 0;
    static final int DELIVERED = 1;
    private volatile IbMtu activeMtu;
    private volatile PKeyTable pkeys = PKeyTable.of();
    private volatile MadTransport madTransport;
    private final LoopCmTransport cmTransport = new LoopCmTransport(this);
    private volatile SubnetAdministrator subnetAdministrator;
    /** Faults of packets this port sends; see {@link Fabric#setFaults}. */
    volatile Faults faults = Faults.NONE;
    /** Random source of this port's faults, seeded from the fabric seed and the port GUID. */
    final java.util.SplittableRandom faultRandom;

    LoopPort(LoopDevice device, ipoib.verbs.loopback.subnet.Port model) {
        this.device = device;
        this.model = model;
        this.number = model.number();
        this.guid = Guid.of(model.guid());
        this.gid0 = Gid.of(device.fabric.config().subnetPrefix(), guid);
        this.activeMtu = device.fabric.config().mtu();
        this.faultRandom = new java.util.SplittableRandom(device.fabric.config().seed() ^ guid.value());
        packets.counter("sent");
        packets.counter("delivered");
    }

    @Override
    public Device device() {
        return device;
    }

    @Override
    public int number() {
        return number;
    }

    public Guid guid() {
        return guid;
    }

    @Override
    public PortAttributes attributes() {
        boolean external = device.fabric.subnetManager().standsDown();
        return new PortAttributes(state(), Lid.of(lidValue()), external ? model.lmc() : device.fabric.config().lmc(),
                Lid.of(external ? model.smLid() : SubnetManager.SM_LID), 0,
                activeMtu, IbMtu.MTU_4096,
                device.fabric.config().rate(), gid0.prefix(), 1, pkeys.size());
    }

    @Override
    public Gid gid(int index) {
        if (index != 0) {
            throw new VerbsException("port " + this + " has one GID (index 0), not index " + index);
        }
        return gid0;
    }

    @Override
    public PKeyTable pkeyTable() {
        return pkeys;
    }

    /** The port's table entry of the requested partition (full or limited), or null. */
    PKey partitionKey(PKey requested) {
        OptionalInt i = pkeys.indexOfPartition(requested);
        return i.isPresent() ? pkeys.get(i.getAsInt()).orElse(null) : null;
    }

    @Override
    public AutoCloseable addEventListener(Consumer<PortEvent> listener) {
        listeners.add(listener);
        return () -> listeners.remove(listener);
    }

    void raise(PortEvent.Type type) {
        PortEvent event = new PortEvent(this, type);
        for (Consumer<PortEvent> l : listeners) {
            device.fabric.deliverEvent(l, event);
        }
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity) {
        return createCompletionQueue(capacity, false);
    }

    @Override
    public CompletionQueue createCompletionQueue(int capacity, boolean singleThreaded) {
        device.fabric.checkOpen();
        return new LoopCompletionQueue(capacity, singleThreaded);
    }

    @Override
    public UdQueuePair createUdQueuePair(UdQueuePairConfig config) {
        device.fabric.checkOpen();
        if (!isActive()) {
            throw new VerbsException("create UD QP: port " + this + " is " + state() + ", not ACTIVE");
        }
        PKey pkey = pkeys.get(config.pkeyIndex()).orElseThrow(() -> new VerbsException("create UD QP: P_Key index "
                + config.pkeyIndex() + " is not a valid entry of port " + this + " (table " + pkeys + ")"));
        if (config.qkey().isControlled() && !config.privileged()) {
            throw new VerbsException("create UD QP: Q_Key " + config.qkey()
                    + " is controlled (high bit set); only a privileged queue pair may use it");
        }
        if (!(config.sendCompletionQueue() instanceof LoopCompletionQueue sendCq)
                || !(config.receiveCompletionQueue() instanceof LoopCompletionQueue recvCq)) {
            throw new VerbsException("create UD QP: completion queues must come from the loopback provider");
        }
        LoopQueuePair qp = new LoopQueuePair(this, device.allocateQpn(), config, pkey, sendCq, recvCq);
        sendCq.bindProducer(qp.sendCompletionLock);
        recvCq.bindProducer(qp.receiveLock);
        queuePairs.put(qp.qpnValue(), qp);
        return qp;
    }

    @Override
    public long qkeyViolations() {
        return qkeyViolations.sum();
    }

    /** The RC traffic of this port (fabric:stats). */
    public RcPortCounters rcCounters() {
        return rcCounters;
    }

    void countQkeyViolation() {
        qkeyViolations.increment();
    }

    void countQkeyViolations(int packets) {
        qkeyViolations.add(packets);
    }

    @Override
    public long receiveBufferDrops() {
        return receiveBufferDrops.sum();
    }

    void countReceiveBufferDrops(int packets) {
        receiveBufferDrops.add(packets);
    }

    @Override
    public ProviderStatus connectedModeSupport() {
        return ProviderStatus.available("loopback fabric: RC queue pairs with go-back-N retransmission, shared "
                + "receive queues, CM MADs on QP1");
    }

    @Override
    public RcQueuePair createRcQueuePair(RcQueuePairConfig config) {
        device.fabric.checkOpen();
        if (!isActive()) {
            throw new VerbsException("create RC QP: port " + this + " is " + state() + ", not ACTIVE");
        }
        PKey pkey = pkeys.get(config.pkeyIndex()).orElseThrow(() -> new VerbsException("create RC QP: P_Key index "
                + config.pkeyIndex() + " is not a valid entry of port " + this + " (table " + pkeys + ")"));
        if (!(config.sendCompletionQueue() instanceof LoopCompletionQueue sendCq)
                || !(config.receiveCompletionQueue() instanceof LoopCompletionQueue recvCq)) {
            throw new VerbsException("create RC QP: completion queues must come from the loopback provider");
        }
        LoopSharedReceiveQueue rq;
        boolean own = config.sharedReceiveQueue() == null;
        if (own) {
            rq = new LoopSharedReceiveQueue(device, config.receiveQueueDepth());
        } else if (config.sharedReceiveQueue() instanceof LoopSharedReceiveQueue srq) {
            rq = srq;
        } else {
            throw new VerbsException("create RC QP: the shared receive queue must come from the loopback provider");
        }
        LoopRcQueuePair qp = new LoopRcQueuePair(this, device.allocateQpn(), pkey, config.pkeyIndex(), sendCq, recvCq, rq,
                own, config.sendQueueDepth());
        sendCq.bindProducer(null);
        recvCq.bindProducer(null);
        rcQueuePairs.put(qp.qpnValue(), qp);
        return qp;
    }

    @Override
    public SharedReceiveQueue createSharedReceiveQueue(int capacity) {
        device.fabric.checkOpen();
        return new LoopSharedReceiveQueue(device, capacity);
    }

    LoopRcQueuePair rcQueuePair(int qpn) {
        return rcQueuePairs.get(qpn);
    }

    void removeRcQueuePair(LoopRcQueuePair qp) {
        rcQueuePairs.remove(qp.qpnValue());
    }

    List<LoopRcQueuePair> rcQueuePairs() {
        return rcQueuePairs.values();
    }

    LoopQueuePair queuePair(int qpn) {
        return queuePairs.get(qpn);
    }

    void removeQueuePair(LoopQueuePair qp) {
        queuePairs.remove(qp.qpnValue());
    }

    List<LoopQueuePair> queuePairs() {
        return queuePairs.values();
    }

    @Override
    public AddressHandle createAddressHandle(AddressVector vector) {
        device.fabric.checkOpen();
        if (vector == null) {
            throw new VerbsException("create address handle: vector is null");
        }
        return new LoopAddressHandle(this, vector);
    }

    @Override
    public MadTransport madTransport() {
        MadTransport t = madTransport;
        if (t == null) {
            throw new VerbsException("port " + this + " has no management transport");
        }
        return t;
    }

    @Override
    public ipoib.api.verbs.CmTransport cmTransport() {
        device.fabric.checkOpen();
        return cmTransport;
    }

    LoopCmTransport loopCmTransport() {
        return cmTransport;
    }

    @Override
    public SubnetAdministrator subnetAdministrator() {
        SubnetAdministrator sa = subnetAdministrator;
        if (sa == null) {
            throw new VerbsException("port " + this + " has no subnet administrator client");
        }
        return sa;
    }

    /** Installs the port's MAD transport and SA client (by the provider component). */
    public void setManagement(MadTransport transport, SubnetAdministrator client) {
        this.madTransport = transport;
        this.subnetAdministrator = client;
    }

    // ---- state managed by the fabric -------------------------------------------------------------

    /** Whether the port sends and receives: Active with its link up. */
    boolean isActive() {
        return model.isActive();
    }

    /** The verbs port state: the model's logical state, DOWN while the link is down. */
    PortState state() {
        if (!model.linkUp()) {
            return PortState.DOWN;
        }
        return switch (model.state()) {
            case DOWN -> PortState.DOWN;
            case INIT -> PortState.INIT;
            case ARMED -> PortState.ARMED;
            case ACTIVE -> PortState.ACTIVE;
        };
    }

    int lidValue() {
        return model.lid();
    }

    IbMtu activeMtu() {
        return activeMtu;
    }

    void setPKeys(PKeyTable table) {
        this.pkeys = table;
    }

    @Override
    public String toString() {
        return device.name() + "/" + number;
    }
}
