package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.JoinState;
import ipoib.api.PKey;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.api.verbs.SendWorkRequests;
import ipoib.api.verbs.VerbsException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import ipoib.runtime.Clock;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.RateLimitedFailures;
import ipoib.runtime.ThreadControlLoop;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * A loopback InfiniBand subnet: HCAs and their ports, the subnet manager, the data path
 * between queue pairs, port and subnet events, fault injection and the wire tap.
 *
 * <p>Its events, CM MADs and timers (delay and reorder faults, RC retransmissions) run on one
 * control loop, {@code loopback-fabric-events}, or the loop a test gives (a manual one moves the
 * timers by hand); the wire tap's timestamps follow that loop's clock from the wall-clock time
 * the fabric was made. A failing task of the loop is counted ({@code event_failures}) and
 * logged, one line per 10 s.
 *
 * <p>One class: UD and RC delivery, single and as runs of a post list, share the fault
 * draw, the bounded hold-back, the counters and the wire tap; the queue pairs' own rules are in {@link LoopQueuePair} and
 * {@link LoopRcQueuePair}, the rendering of packets in {@link IbaPackets}.
 */
public final class Fabric implements AutoCloseable {
    private static final Logger LOG = Logger.getLogger(Fabric.class.getName());

    private final FabricConfig config;
    private final List<LoopDevice> devices;
    private final SubnetManager subnetManager;
    private final FabricCounters counters = new FabricCounters();
    private static final String EVENTS_THREAD = "loopback-fabric-events";
    private final ControlLoop events;
    private final RateLimitedFailures eventFailures = new RateLimitedFailures(FailureHandler.JAVA_LOGGING,
            Clock.SYSTEM, 10, TimeUnit.SECONDS);
    /** The wire tap's origin: the wall-clock time (ns since the epoch) at {@link #clockAtOrigin}. */
    private final long epochNanosAtOrigin;
    private final long clockAtOrigin;
    /** Packets the delay and reorder faults may hold back at once. */
    static final int MAX_HELD_BACK = 4096;

    private final java.util.concurrent.atomic.AtomicInteger heldBack = new java.util.concurrent.atomic.AtomicInteger();
    private volatile WireTap tap;
    private volatile boolean closed;

    public Fabric(FabricConfig config) {
        this(config, null);
    }

    /**
     * @param events the loop of the fabric's events and timers, or null for a thread of its own;
     *               closed with the fabric
     */
    public Fabric(FabricConfig config, ControlLoop events) {
        this.config = config;
        this.events = events != null ? events : new ThreadControlLoop(EVENTS_THREAD, eventFailures);
        // The one wall-clock reading: a capture's timestamps are times of day (pcapng), later ones
        // are this origin moved by the loop's clock.
        Instant now = Instant.now();
        this.epochNanosAtOrigin = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.clockAtOrigin = this.events.clock().nanoTime();
        this.subnetManager = new SubnetManager(this);
        List<LoopDevice> list = new ArrayList<>();
        for (int i = 0; i < config.hcas(); i++) {
            list.add(new LoopDevice(this, i, Guid.of(config.nodeGuidBase() + (long) (i + 1) * 0x100),
                    config.portsPerHca(), config.seed()));
        }
        this.devices = List.copyOf(list);
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : devices) {
            ports.addAll(d.loopPorts());
        }
        counters.ports(ports);
        counters.eventFailures(eventFailures::count);
    }

    /** The subnet manager's sweep: LIDs, P_Key tables, ports ACTIVE, the configured IPoIB groups. */
    public void start() {
        // With LMC > 0 a base LID is a multiple of 2^LMC (IBA 7.11.1), as OpenSM assigns them.
        int lids = 1 << config.lmc();
        int lid = (SubnetManager.FIRST_PORT_LID + lids - 1) / lids * lids;
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                subnetManager.assignLid(p, lid);
                lid += lids;
                p.setPKeys(pkeyTableFor(p));
                p.setState(PortState.ACTIVE);
            }
        }
        for (PartitionConfig partition : config.partitions()) {
            if (partition.ipoib()) {
                subnetManager.createPersistent(broadcastGroup(partition));
            }
        }
    }

    private PKeyTable pkeyTableFor(LoopPort port) {
        List<PKey> keys = new ArrayList<>();
        for (PartitionConfig partition : config.partitions()) {
            Optional<Boolean> full = membership(partition, port);
            full.ifPresent(f -> keys.add(PKey.of(partition.pkeyBase() | (f ? PKey.FULL_MEMBER_BIT : 0))));
        }
        return PKeyTable.of(keys);
    }

    /** The port's membership of a partition: full (true), limited (false) or none; full wins. */
    private static Optional<Boolean> membership(PartitionConfig partition, LoopPort port) {
        Optional<Boolean> result = Optional.empty();
        for (PartitionConfig.Member m : partition.members()) {
            if (m.matches(port.device.name(), port.number(), port.guid())) {
                if (m.full()) {
                    return Optional.of(true);
                }
                result = Optional.of(false);
            }
        }
        return result;
    }

    /** The broadcast group of an IPoIB partition (RFC 4391 §4): parameters from the partition line. */
    private McMemberRecord broadcastGroup(PartitionConfig partition) {
        PKey pkey = PKey.of(partition.pkeyBase() | PKey.FULL_MEMBER_BIT);
        Mgid mgid = Mgid.of(0xFF10_401B_0000_0000L | (long) partition.scope() << 48 | (long) pkey.value() << 16,
                0x0000_0000_FFFF_FFFFL);
        return new McMemberRecord(mgid, Gid.ZERO, partition.qkey(), Lid.of(Lid.MULTICAST_BASE), partition.mtu(), 0,
                pkey, partition.rate(), SubnetManager.PACKET_LIFETIME, partition.serviceLevel(), 0, 0,
                JoinState.FULL_MEMBER, false);
    }

    public FabricConfig config() {
        return config;
    }

    public List<LoopDevice> devices() {
        return devices;
    }

    public SubnetManager subnetManager() {
        return subnetManager;
    }

    public FabricCounters counters() {
        return counters;
    }

    PartitionConfig partition(int base) {
        for (PartitionConfig p : config.partitions()) {
            if (p.pkeyBase() == base) {
                return p;
            }
        }
        return null;
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException("the loopback fabric is closed (provider stopped)");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    public void setWireTap(WireTap tap) {
        this.tap = tap;
    }

    // ---- data path --------------------------------------------------------------------------------

    /**
     * Carries one datagram from a queue pair to its destination(s). Allocation-free unless a
     * fault that holds packets back or a wire tap is active.
     */
    void transmit(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, MemorySegment payload,
                  long offset, int length) {
        LoopPort src = sender.port;
        sender.countSent(1);
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE);
            return;
        }
        int sl = ah.vector.serviceLevel();
        int tclass = ah.vector.trafficClass();
        int flow = ah.vector.flowLabel();
        int hop = ah.vector.hopLimit();
        WireTap t = tap;
        if (t != null) {
            tap(t, sender, ah, remoteQpn, qkey, payload, offset, length);
        }
        Faults f = src.faults;
        if (f.any()) {
            if (injectFaults(f, src, sender, ah, remoteQpn, qkey, payload, offset, length)) {
                return;
            }
        }
        deliver(sender, ah, remoteQpn, qkey, sl, tclass, flow, hop, payload, offset, length);
    }

    /**
     * Carries a run of datagrams of a send list, all to the same unicast queue pair, as one: the
     * look-ups, the partition and Q_Key checks and the counters once, then the receive queue
     * fills them in order under one lock with one claim of its completion queue. With a wire tap
     * or faults on the sending port, or to a group, each datagram goes alone through
     * {@link #transmit(LoopQueuePair, LoopAddressHandle, int, int, MemorySegment, long, int)}, so
     * that the tap sees every packet and the faults are drawn per packet, in list order.
     */
    void transmit(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, SendWorkRequests list, int from,
                  int to) {
        LoopPort src = sender.port;
        if (to - from == 1 || tap != null || src.faults.any() || ah.multicast) {
            for (int k = from; k < to; k++) {
                transmit(sender, ah, remoteQpn, qkey, ((LoopMemoryRegion) list.region(k)).segment(), list.offset(k),
                        list.length(k));
            }
            return;
        }
        int n = to - from;
        sender.countSent(n);
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE, n);
            return;
        }
        LoopPort dst = subnetManager.portByLid(ah.dlid);
        if (dst == null || !dst.isActive()) {
            counters.drop(DropReason.NO_SUCH_LID, n);
            return;
        }
        LoopQueuePair receiver = dst.queuePair(remoteQpn);
        if (receiver == null) {
            counters.drop(DropReason.NO_SUCH_QP, n);
            return;
        }
        if (!sender.pkey.canCommunicateWith(receiver.pkey)) {
            counters.drop(DropReason.PKEY_MISMATCH, n);
            return;
        }
        if (receiver.qkeyBits != qkey) {
            counters.drop(DropReason.QKEY_MISMATCH, n);
            receiver.port.countQkeyViolations(n);
            return;
        }
        int delivered = receiver.receive(sender, src.lidValue(), ah.vector.serviceLevel(), ah.global,
                ah.vector.trafficClass(), ah.vector.flowLabel(), ah.vector.hopLimit(), ah.dgidPrefix,
                ah.dgidInterfaceId, list, from, to);
        sender.countDelivered(delivered);
    }

    private void deliver(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, int sl, int tclass,
                         int flow, int hop, MemorySegment payload, long offset, int length) {
        LoopPort src = sender.port;
        int slid = src.lidValue();
        if (ah.multicast) {
            MulticastGroup group = subnetManager.groupByMlid(ah.dlid);
            if (group == null) {
                counters.drop(DropReason.NO_SUCH_GROUP);
                return;
            }
            if (!group.isMember(src.gid(0))) {
                counters.drop(DropReason.NOT_A_MEMBER);
                return;
            }
            // Replicated to every attached queue pair of a receiving member port (the switch
            // forwards only to FullMember and NonMember ports), the sender's own included.
            for (LoopQueuePair receiver : group.attached()) {
                if (group.receives(receiver.port.gid(0))) {
                    deliverTo(sender, receiver, slid, qkey, sl, true, tclass, flow, hop, ah.dgidPrefix,
                            ah.dgidInterfaceId, payload, offset, length);
                }
            }
            return;
        }
        LoopPort dst = subnetManager.portByLid(ah.dlid);
        if (dst == null || !dst.isActive()) {
            counters.drop(DropReason.NO_SUCH_LID);
            return;
        }
        LoopQueuePair receiver = dst.queuePair(remoteQpn);
        if (receiver == null) {
            counters.drop(DropReason.NO_SUCH_QP);
            return;
        }
        deliverTo(sender, receiver, slid, qkey, sl, ah.global, tclass, flow, hop, ah.dgidPrefix, ah.dgidInterfaceId,
                payload, offset, length);
    }

    private void deliverTo(LoopQueuePair sender, LoopQueuePair receiver, int slid, int qkey, int sl, boolean grh,
                           int tclass, int flow, int hop, long dgidPrefix, long dgidInterfaceId,
                           MemorySegment payload, long offset, int length) {
        if (!sender.pkey.canCommunicateWith(receiver.pkey)) {
            counters.drop(DropReason.PKEY_MISMATCH);
            return;
        }
        if (receiver.qkeyBits != qkey) {
            counters.drop(DropReason.QKEY_MISMATCH);
            receiver.port.countQkeyViolation();
            return;
        }
        DropReason dropped = receiver.receive(sender, slid, sl, grh, tclass, flow, hop, dgidPrefix, dgidInterfaceId,
                payload, offset, length);
        if (dropped == null) {
            sender.countDelivered(1);
        } else {
            counters.drop(dropped);
        }
    }

    /**
     * Carries one RC packet to the connected queue pair and its ACK/NAK back. The sender port's
     * faults apply to the packet (loss, corruption caught by the CRCs, duplication, delay and
     * reordering), the receiver port's loss and corruption to the ACK; the transport repairs both.
     * Allocation-free unless a delay or reorder fault holds the packet back.
     */
    void transmitRc(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload, long offset,
                    int length) {
        LoopPort src = sender.port;
        counters.countSent(src);
        counters.rcSent();
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE);
            return;
        }
        src.rcCounters().packet();
        WireTap t = tap;
        if (t != null) {
            tapRc(t, sender, psn, first, last, payload, offset, length);
        }
        Faults f = src.faults;
        int copies = 1;
        long delay = 0;
        if (f.any()) {
            int drawn = drawFaults(f, src.faultRandom);
            if ((drawn & (LOSE | CORRUPT)) != 0) {
                // A single flipped bit never passes the ICRC/VCRC check (see corruptionDetected for UD).
                counters.drop((drawn & LOSE) != 0 ? DropReason.FAULT_LOSS : DropReason.FAULT_CORRUPT);
                return;
            }
            if ((drawn & DUPLICATE) != 0) {
                counters.duplicated();
                copies = 2;
            }
            delay = delayNanos(f, drawn, src.faultRandom);
        }
        if (delay == 0) {
            for (int i = 0; i < copies; i++) {
                deliverRc(sender, psn, first, last, payload, offset, length);
            }
            return;
        }
        holdBack(copies, delay, payload, offset, length, copy -> deliverRc(sender, psn, first, last, copy, 0, length));
    }

    private void deliverRc(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload,
                           long offset, int length) {
        LoopPort dst = subnetManager.portByLid(sender.remoteLid);
        if (dst == null || !dst.isActive()) {
            counters.drop(DropReason.NO_SUCH_LID);
            return;
        }
        LoopRcQueuePair receiver = dst.rcQueuePair(sender.remoteQpn);
        if (receiver == null || receiver.remoteQpn != sender.qpnValue()) {
            counters.drop(DropReason.NO_SUCH_QP); // the responder would answer with a NAK only on a connected QP
            return;
        }
        if (!sender.pkey.canCommunicateWith(receiver.pkey)) {
            counters.drop(DropReason.PKEY_MISMATCH);
            return;
        }
        long ack = receiver.receive(sender, psn, first, last, payload, offset, length, sender.port.lidValue());
        if (ack == RcAck.NONE) {
            counters.drop(DropReason.QP_NOT_READY);
            return;
        }
        if (ack == RcAck.SILENT) {
            return; // out of sequence behind an outstanding NAK: dropped by the responder, counted there
        }
        counters.countDelivered(sender.port);
        dst.rcCounters().answer(ack);
        WireTap t = tap;
        if (t != null) {
            tapRcAck(t, receiver, sender, ack);
        }
        Faults back = dst.faults;
        if (back.any() && (back.lossPercent() > 0 || back.corruptPercent() > 0)) {
            boolean lost;
            synchronized (dst.faultRandom) {
                lost = dst.faultRandom.nextInt(100) < back.lossPercent() + back.corruptPercent();
            }
            if (lost) {
                counters.rcAckLost();
                return;
            }
        }
        sender.acknowledged(ack);
    }

    /** Faults drawn for one packet, as bits: lost, corrupted, duplicated, reordered. */
    private static final int LOSE = 1;
    private static final int CORRUPT = 2;
    private static final int DUPLICATE = 4;
    private static final int REORDER = 8;

    /** Draws the faults of one packet from the port's seeded random (allocation-free). */
    private static int drawFaults(Faults f, java.util.SplittableRandom random) {
        synchronized (random) {
            return (random.nextInt(100) < f.lossPercent() ? LOSE : 0)
                    | (random.nextInt(100) < f.corruptPercent() ? CORRUPT : 0)
                    | (random.nextInt(100) < f.duplicatePercent() ? DUPLICATE : 0)
                    | (random.nextInt(100) < f.reorderPercent() ? REORDER : 0);
        }
    }

    /** The packet's delay: the configured one, plus 1..4 ms when it is reordered. */
    private static long delayNanos(Faults f, int drawn, java.util.SplittableRandom random) {
        long reorder = 0;
        if ((drawn & REORDER) != 0) {
            synchronized (random) {
                reorder = 1_000_000L + random.nextInt(4) * 1_000_000L;
            }
        }
        return f.delayMillis() * 1_000_000L + reorder;
    }

    /**
     * Holds copies of a packet back for {@code delay}: it must outlive the sender's buffer. The held
     * packets are bounded ({@value #MAX_HELD_BACK}); past that the packet is dropped and counted.
     */
    private void holdBack(int copies, long delay, MemorySegment payload, long offset, int length,
                          java.util.function.Consumer<MemorySegment> deliver) {
        if (heldBack.get() + copies > MAX_HELD_BACK) {
            counters.drop(DropReason.FAULT_DELAY_QUEUE_FULL);
            return;
        }
        heldBack.addAndGet(copies);
        MemorySegment copy = Arena.ofAuto().allocate(Math.max(1, length));
        MemorySegment.copy(payload, offset, copy, 0, length);
        counters.delayed();
        for (int i = 0; i < copies; i++) {
            schedule(() -> {
                heldBack.decrementAndGet();
                deliver.accept(copy);
            }, delay);
        }
    }

    /** Applies the sender port's faults; returns true when the packet was consumed here. */
    private boolean injectFaults(Faults f, LoopPort src, LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn,
                                 int qkey, MemorySegment payload, long offset, int length) {
        int drawn = drawFaults(f, src.faultRandom);
        if ((drawn & LOSE) != 0) {
            counters.drop(DropReason.FAULT_LOSS);
            return true;
        }
        if ((drawn & CORRUPT) != 0
                && corruptionDetected(sender, ah, remoteQpn, qkey, payload, offset, length, src.faultRandom)) {
            counters.drop(DropReason.FAULT_CORRUPT);
            return true;
        }
        int copies = (drawn & DUPLICATE) != 0 ? 2 : 1;
        if (copies == 2) {
            counters.duplicated();
        }
        long delay = delayNanos(f, drawn, src.faultRandom);
        if (delay == 0) {
            for (int i = 0; i < copies; i++) {
                deliver(sender, ah, remoteQpn, qkey, ah.vector.serviceLevel(), ah.vector.trafficClass(),
                        ah.vector.flowLabel(), ah.vector.hopLimit(), payload, offset, length);
            }
            return true;
        }
        // Under the sender's send lock, as its other deliveries (they count in its cached cells).
        holdBack(copies, delay, payload, offset, length, copy -> sender.underSendLock(() -> deliver(sender, ah,
                remoteQpn, qkey, ah.vector.serviceLevel(), ah.vector.trafficClass(), ah.vector.flowLabel(),
                ah.vector.hopLimit(), copy, 0, length)));
        return true;
    }

    /**
     * Flips one bit of the packet as it would be on the wire and checks it as a receiver would:
     * the ICRC/VCRC check catches every single-bit error, so the packet is dropped.
     */
    private boolean corruptionDetected(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey,
                                       MemorySegment payload, long offset, int length, java.util.SplittableRandom r) {
        return IbaPackets.corruptAndCheck(describe(sender, ah, remoteQpn, qkey, payload, offset, length), r);
    }

    /** The packet's header fields and a copy of its payload, as the wire would carry them. */
    private WireTap.Packet describe(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey,
                                           MemorySegment payload, long offset, int length) {
        byte[] copy = new byte[length];
        MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
        return new WireTap.Packet(wallNanos(), sender.port.lidValue(),
                ah.dlid, ah.vector.serviceLevel(), ah.global, ah.global ? sender.port.gid(0) : null,
                ah.global ? ah.vector.destinationGid() : null, ah.vector.trafficClass(), ah.vector.flowLabel(),
                ah.vector.hopLimit(), sender.pkey.value(), remoteQpn, qkey, sender.qpnValue(), copy);
    }

    /** The GSI's well-known Q_Key (IBA 13.4.5): every MAD to and from QP1 carries it. */
    static final int GSI_QKEY = 0x8001_0000;
    /** The GSI's queue pair. */
    static final int GSI_QPN = 1;

    /**
     * Shows a management datagram to the wire tap as the UD packet a wire would carry: QP1 to QP1
     * with the GSI Q_Key, P_Key 0xffff (the GSI sends with P_Key index 0), SL 0, no GRH (the SM is
     * on the local subnet), the 256-octet MAD as the payload.
     */
    void tapManagement(int slid, int dlid, byte[] mad) {
        WireTap t = tap;
        if (t == null) {
            return;
        }
        try {
            t.packet(new WireTap.Packet(wallNanos(), slid, dlid, 0, false,
                    null, null, 0, 0, 0, PKey.DEFAULT.value(), GSI_QPN, GSI_QKEY, GSI_QPN, mad.clone()));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "wire tap failed; removing it", e);
            tap = null;
        }
    }

    /**
     * A CM MAD from one port's QP1 to another's (IBA 12.6: class 0x07 on the GSI): shown to the wire
     * tap, delivered on the event thread when the destination LID is an active port with a CM agent;
     * otherwise dropped and counted (the sender's agent times out and retries, as on a wire).
     */
    void sendCm(LoopPort from, int dlid, byte[] mad) {
        tapManagement(from.lidValue(), dlid, mad);
        int slid = from.lidValue();
        events.execute(() -> {
            LoopPort dst = subnetManager.portByLid(dlid);
            if (dst == null || !dst.isActive()) {
                counters.drop(DropReason.NO_SUCH_LID);
                return;
            }
            try {
                if (!dst.loopCmTransport().deliver(slid, mad)) {
                    counters.drop(DropReason.NO_SUCH_QP);
                }
            } catch (RuntimeException e) {
                eventFailures.failed("CM agent of port " + dst + " failed on a MAD", e);
            }
        });
    }

    private void tap(WireTap t, LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey,
                     MemorySegment payload, long offset, int length) {
        try {
            t.packet(describe(sender, ah, remoteQpn, qkey, payload, offset, length));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "wire tap failed; removing it", e);
            tap = null;
        }
    }

    /** Shows an RC SEND packet to the wire tap: its opcode from its place in the message (IBA 9.2). */
    private void tapRc(WireTap t, LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload,
                       long offset, int length) {
        int opcode = first && last ? WireTap.RC_SEND_ONLY : first ? WireTap.RC_SEND_FIRST
                : last ? WireTap.RC_SEND_LAST : WireTap.RC_SEND_MIDDLE;
        byte[] copy = new byte[length];
        MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
        try {
            // AckReq on the last packet of a message: the requester asks for the ACK that completes it.
            t.rcPacket(new WireTap.RcPacket(wallNanos(), sender.port.lidValue(), sender.remoteLid, sender.serviceLevel,
                    sender.pkey.value(), sender.remoteQpn, opcode, last, psn, -1, 0, copy));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "wire tap failed; removing it", e);
            tap = null;
        }
    }

    /** Shows the responder's ACK or NAK (an ACKNOWLEDGE packet with its AETH) to the wire tap. */
    private void tapRcAck(WireTap t, LoopRcQueuePair responder, LoopRcQueuePair requester, long ack) {
        try {
            t.rcPacket(new WireTap.RcPacket(wallNanos(), responder.port.lidValue(), requester.port.lidValue(),
                    responder.serviceLevel, responder.pkey.value(), requester.qpnValue(), WireTap.RC_ACKNOWLEDGE, false,
                    RcAck.psn(ack), RcAck.syndrome(ack), RcAck.msn(ack), new byte[0]));
        } catch (RuntimeException e) {
            LOG.log(Level.WARNING, "wire tap failed; removing it", e);
            tap = null;
        }
    }

    /** Now, as nanoseconds since the epoch on the loop's clock (for the wire tap). */
    private long wallNanos() {
        return epochNanosAtOrigin + (events.clock().nanoTime() - clockAtOrigin);
    }

    // ---- events and control ------------------------------------------------------------------------

    void deliverEvent(Consumer<PortEvent> listener, PortEvent event) {
        if (closed) {
            return;
        }
        events.execute(() -> {
            try {
                listener.accept(event);
            } catch (RuntimeException e) {
                eventFailures.failed("port event listener failed on " + event, e);
            }
        });
    }

    /**
     * Waits until the port events raised so far have been handed to their listeners (for the shell:
     * a script's next command sees consumers that have been told). Not for the events thread itself.
     */
    public void awaitEventsDelivered() {
        if (closed || events.inLoop()) {
            return;
        }
        try {
            events.run(() -> { }, 5, TimeUnit.SECONDS);
        } catch (IllegalStateException e) {
            // Closing, or a listener is stuck: the command still reports what it did.
        }
    }

    /** Runs {@code task} on the events loop after {@code delayNanos} of its clock (0: after what is posted). */
    void schedule(Runnable task, long delayNanos) {
        if (!closed) {
            events.schedule(task, delayNanos, TimeUnit.NANOSECONDS);
        }
    }

    /** The loop of the fabric's events and timers (the SA emulator's clock when it is not given one). */
    ControlLoop events() {
        return events;
    }

    /** Finds a port by device name and number. */
    public LoopPort port(String device, int number) {
        for (LoopDevice d : devices) {
            if (d.name().equals(device)) {
                for (LoopPort p : d.loopPorts()) {
                    if (p.number() == number) {
                        return p;
                    }
                }
                throw new IllegalArgumentException("device " + device + " has no port " + number + "; ports are 1.."
                        + d.loopPorts().size());
            }
        }
        throw new IllegalArgumentException("no device '" + device + "'; devices are loop0..loop" + (devices.size() - 1));
    }

    /** Takes a port down: PORT_ERROR, its memberships and subscriptions are gone. */
    public void portDown(LoopPort port) {
        if (port.state() == PortState.DOWN) {
            return;
        }
        port.setState(PortState.DOWN);
        subnetManager.removePortEverywhere(port.gid(0));
        port.raise(PortEvent.Type.PORT_ERROR);
    }

    /** Brings a port back: ACTIVE and PORT_ACTIVE. */
    public void portUp(LoopPort port) {
        if (port.state() == PortState.ACTIVE) {
            return;
        }
        port.setState(PortState.ACTIVE);
        port.raise(PortEvent.Type.PORT_ACTIVE);
    }

    /**
     * A port reset: the port goes down, every queue pair on it fails (consumers create new ones,
     * which get new QPNs), and the port comes back up.
     */
    public void resetPort(LoopPort port) {
        for (LoopQueuePair qp : port.queuePairs()) {
            qp.fail();
        }
        for (LoopRcQueuePair qp : port.rcQueuePairs()) {
            qp.toError();
        }
        portDown(port);
        port.raise(PortEvent.Type.DEVICE_FATAL);
        portUp(port);
    }

    /** The SM gives a port a new LID (LID_CHANGE). */
    public void changeLid(LoopPort port, int lid) {
        subnetManager.assignLid(port, lid);
        port.raise(PortEvent.Type.LID_CHANGE);
    }

    /** A new SM takes over: it forgets joins and subscriptions; every port gets SM_CHANGE and CLIENT_REREGISTER. */
    public void smChange() {
        subnetManager.forgetClients();
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                p.raise(PortEvent.Type.SM_CHANGE);
                p.raise(PortEvent.Type.CLIENT_REREGISTER);
            }
        }
    }

    /** Replaces a port's P_Key table (PKEY_CHANGE). */
    public void setPKeys(LoopPort port, List<PKey> keys) {
        port.setPKeys(PKeyTable.of(keys));
        port.raise(PortEvent.Type.PKEY_CHANGE);
    }

    /** The faults of packets a port sends. */
    public Faults faults(LoopPort port) {
        return port.faults;
    }

    /** Sets the faults of packets sent by a port (all ports when null). */
    public void setFaults(LoopPort port, Faults faults) {
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                if (port == null || p == port) {
                    p.faults = faults;
                }
            }
        }
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                for (LoopQueuePair qp : p.queuePairs()) {
                    qp.fail();
                }
                p.setState(PortState.DOWN);
            }
        }
        events.close();
        if (events instanceof ThreadControlLoop thread && !thread.inLoop()) {
            try {
                thread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
