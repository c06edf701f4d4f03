package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.SendWorkRequests;
import java.lang.foreign.MemorySegment;

/**
 * Carries UD datagrams from a queue pair to their destination queue pair, or to every attached
 * member of a multicast group: the partition and Q_Key checks, the counters, the sending port's
 * faults and the wire tap. Allocation-free unless a fault that holds packets back or a wire tap is
 * active.
 */
final class UdDelivery {
    private final SubnetManager subnetManager;
    private final FabricCounters counters;
    private final FaultInjector faults;
    private final WireTapFeed tap;
    private final SwitchForwarding forwarding;
    private final SwitchForwarding.MulticastDelivery toGroupMembers = this::deliverToGroupMembers;
    /** What a unicast datagram does when its destination has no posted receive buffer. */
    final ReceiveBufferHold hold = new ReceiveBufferHold();

    UdDelivery(SubnetManager subnetManager, FabricCounters counters, FaultInjector faults, WireTapFeed tap,
               SwitchForwarding forwarding) {
        this.subnetManager = subnetManager;
        this.counters = counters;
        this.faults = faults;
        this.tap = tap;
        this.forwarding = forwarding;
    }

    /** Carries one datagram. */
    void transmit(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, MemorySegment payload,
                  long offset, int length) {
        LoopPort src = sender.port;
        sender.countSent(1);
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE);
            SwitchForwarding.discarded(src.model, ipoib.verbs.loopback.subnet.PortDiscard.INACTIVE, 1);
            return;
        }
        tap.datagram(sender, ah, remoteQpn, qkey, payload, offset, length);
        Faults f = src.faults;
        if (f.any()) {
            injectFaults(f, src, sender, ah, remoteQpn, qkey, payload, offset, length);
            return;
        }
        deliver(sender, ah, remoteQpn, qkey, payload, offset, length);
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
        if (to - from == 1 || tap.active() || src.faults.any() || ah.multicast) {
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
            SwitchForwarding.discarded(src.model, ipoib.verbs.loopback.subnet.PortDiscard.INACTIVE, n);
            return;
        }
        int octets = 0;
        for (int k = from; k < to; k++) {
            octets += SwitchForwarding.udOctets(ah.global, list.length(k));
        }
        LoopPort dst = forwarding.route(src, ah.dlid, octets, n);
        if (dst == null) {
            return;
        }
        if (!dst.isActive()) {
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
        // What finds no posted buffer waits for the receiver's re-post (ReceiveBufferHold), in order.
        int k = from;
        while (true) {
            k += receiver.receive(sender, src.lidValue(), ah.vector.serviceLevel(), ah.global,
                    ah.vector.trafficClass(), ah.vector.flowLabel(), ah.vector.hopLimit(), ah.dgidPrefix,
                    ah.dgidInterfaceId, list, k, to);
            if (k == to) {
                return;
            }
            if (!hold.await(receiver)) {
                noReceiveBuffer(receiver, to - k);
                return;
            }
        }
    }

    private void noReceiveBuffer(LoopQueuePair receiver, int datagrams) {
        counters.drop(DropReason.NO_RECEIVE_BUFFER, datagrams);
        receiver.port.countReceiveBufferDrops(datagrams);
    }

    /** Applies the sender port's faults to one datagram and delivers what is left of it. */
    private void injectFaults(Faults f, LoopPort src, LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn,
                              int qkey, MemorySegment payload, long offset, int length) {
        int drawn = FaultInjector.draw(f, src.faultRandom);
        if ((drawn & FaultInjector.LOSE) != 0) {
            counters.drop(DropReason.FAULT_LOSS);
            return;
        }
        // The ICRC/VCRC check catches every single-bit error: the receiving port drops the packet.
        if ((drawn & FaultInjector.CORRUPT) != 0 && IbaPackets.corruptAndCheck(
                tap.describe(sender, ah, remoteQpn, qkey, payload, offset, length), src.faultRandom)) {
            counters.drop(DropReason.FAULT_CORRUPT);
            return;
        }
        int copies = (drawn & FaultInjector.DUPLICATE) != 0 ? 2 : 1;
        if (copies == 2) {
            counters.duplicated();
        }
        long delay = FaultInjector.delayNanos(f, drawn, src.faultRandom);
        if (delay == 0) {
            for (int i = 0; i < copies; i++) {
                deliver(sender, ah, remoteQpn, qkey, payload, offset, length);
            }
            return;
        }
        // Under the sender's send lock, as its other deliveries (they count in its cached cells).
        faults.holdBack(copies, delay, payload, offset, length, copy -> sender.underSendLock(() -> deliver(sender, ah,
                remoteQpn, qkey, copy, 0, length)));
    }

    private void deliver(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, MemorySegment payload,
                         long offset, int length) {
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
            // Through the switches' multicast forwarding tables (the SM programs them to the
            // FullMember and NonMember ports), the sender's own port included.
            SwitchForwarding.Packet packet = sender.multicastPacket.set(sender, ah, group, qkey, payload, offset, length);
            forwarding.multicast(src, ah.dlid, SwitchForwarding.udOctets(true, length), toGroupMembers, packet);
            packet.clear();
            return;
        }
        LoopPort dst = forwarding.route(src, ah.dlid, SwitchForwarding.udOctets(ah.global, length), 1);
        if (dst == null) {
            return;
        }
        if (!dst.isActive()) {
            counters.drop(DropReason.NO_SUCH_LID);
            return;
        }
        LoopQueuePair receiver = dst.queuePair(remoteQpn);
        if (receiver == null) {
            counters.drop(DropReason.NO_SUCH_QP);
            return;
        }
        deliverTo(sender, receiver, slid, qkey, ah, ah.global, payload, offset, length);
    }

    /** A multicast packet reached a port: every queue pair attached to the group there gets it, if the port receives. */
    private void deliverToGroupMembers(LoopPort port, SwitchForwarding.Packet p) {
        if (!p.group.receives(port.gid(0))) {
            return;
        }
        int slid = p.sender.port.lidValue();
        for (LoopQueuePair receiver : p.group.attachedAt(port)) {
            deliverTo(p.sender, receiver, slid, p.qkey, p.ah, true, p.payload, p.offset, p.length);
        }
    }

    private void deliverTo(LoopQueuePair sender, LoopQueuePair receiver, int slid, int qkey, LoopAddressHandle ah,
                           boolean grh, MemorySegment payload, long offset, int length) {
        if (!sender.pkey.canCommunicateWith(receiver.pkey)) {
            counters.drop(DropReason.PKEY_MISMATCH);
            return;
        }
        if (receiver.qkeyBits != qkey) {
            counters.drop(DropReason.QKEY_MISMATCH);
            receiver.port.countQkeyViolation();
            return;
        }
        DropReason dropped;
        do {
            dropped = receiver.receive(sender, slid, ah.vector.serviceLevel(), grh, ah.vector.trafficClass(),
                    ah.vector.flowLabel(), ah.vector.hopLimit(), ah.dgidPrefix, ah.dgidInterfaceId, payload, offset,
                    length);
            // A unicast datagram without a posted buffer waits for one (ReceiveBufferHold); multicast does not.
        } while (dropped == DropReason.NO_RECEIVE_BUFFER && !ah.multicast && hold.await(receiver));
        if (dropped == null) {
            sender.countDelivered(1);
        } else if (dropped == DropReason.NO_RECEIVE_BUFFER) {
            noReceiveBuffer(receiver, 1);
        } else {
            counters.drop(dropped);
        }
    }
}
