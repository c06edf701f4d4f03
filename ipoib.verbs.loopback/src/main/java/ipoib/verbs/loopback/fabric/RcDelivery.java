package ipoib.verbs.loopback.fabric;

import ipoib.verbs.loopback.subnet.PortDiscard;
import java.lang.foreign.MemorySegment;

/**
 * Carries RC packets to the connected queue pair and its ACK/NAK back. The sender port's faults
 * apply to the packet (loss, corruption caught by the CRCs, duplication, delay and reordering),
 * the receiver port's loss and corruption to the ACK; the transport repairs both. Allocation-free
 * unless a delay or reorder fault holds the packet back.
 */
final class RcDelivery {
    private final FabricCounters counters;
    private final FaultInjector faults;
    private final WireTapFeed tap;
    private final SwitchForwarding forwarding;

    RcDelivery(FabricCounters counters, FaultInjector faults, WireTapFeed tap,
               SwitchForwarding forwarding) {
        this.forwarding = forwarding;
        this.counters = counters;
        this.faults = faults;
        this.tap = tap;
    }

    /**
     * A message of {@code packets} packets of {@code packetSize} octets (the last the rest) from
     * {@code firstPsn}. With no fault on the sending port and no wire tap, the packets travel
     * together, as a switch forwards them back to back: routed and counted once for all, received
     * under one lock with one copy and answered by one ACK ({@link LoopRcQueuePair#receiveMessage}),
     * unless the responder's ACKs may be lost (its faults) or it cannot take the message whole, when
     * each packet is received alone. Otherwise each packet goes alone through {@link #transmit}, so
     * that the tap sees every packet and the faults are drawn per packet.
     */
    void transmitMessage(LoopRcQueuePair sender, int firstPsn, int packets, int packetSize, MemorySegment payload,
                         long offset, int length) {
        LoopPort src = sender.port;
        if (packets == 1 || tap.active() || src.faults.any()) {
            for (int k = 0; k < packets; k++) {
                sender.sendPacket(payload, offset, length, firstPsn, k, packets, packetSize);
            }
            return;
        }
        counters.countSent(src, packets);
        counters.rcSent(packets);
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE, packets);
            SwitchForwarding.discarded(src.model, PortDiscard.INACTIVE, packets);
            return;
        }
        src.rcCounters().packets(packets);
        int lastLength = length - (packets - 1) * packetSize;
        int octets = (packets - 1) * SwitchForwarding.rcOctets(packetSize) + SwitchForwarding.rcOctets(lastLength);
        LoopPort dst = forwarding.route(src, sender.remoteLid, octets, packets);
        if (dst == null) {
            return;
        }
        if (!dst.isActive()) {
            counters.drop(DropReason.NO_SUCH_LID, packets);
            return;
        }
        LoopRcQueuePair receiver = dst.rcQueuePair(sender.remoteQpn);
        if (receiver == null || receiver.remoteQpn != sender.qpnValue()) {
            counters.drop(DropReason.NO_SUCH_QP, packets);
            return;
        }
        if (!sender.pkey.canCommunicateWith(receiver.pkey)) {
            counters.drop(DropReason.PKEY_MISMATCH, packets);
            return;
        }
        long ack = dst.faults.any() ? RcAck.NONE
                : receiver.receiveMessage(sender, firstPsn, packets, payload, offset, length, src.lidValue());
        if (ack == RcAck.NONE) {
            for (int k = 0; k < packets; k++) {
                arrive(sender, dst, receiver, (firstPsn + k) & LoopRcQueuePair.PSN_MASK, k == 0, k == packets - 1,
                        payload, offset + (long) k * packetSize, k == packets - 1 ? lastLength : packetSize);
            }
            return;
        }
        counters.countDelivered(src, packets);
        dst.rcCounters().acks(packets);
        sender.acknowledged(ack);
    }

    void transmit(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload, long offset,
                  int length) {
        LoopPort src = sender.port;
        counters.countSent(src);
        counters.rcSent();
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE);
            SwitchForwarding.discarded(src.model, PortDiscard.INACTIVE, 1);
            return;
        }
        src.rcCounters().packet();
        tap.rcSend(sender, psn, first, last, payload, offset, length);
        Faults f = src.faults;
        int copies = 1;
        long delay = 0;
        if (f.any()) {
            int drawn = FaultInjector.draw(f, src.faultRandom);
            if ((drawn & (FaultInjector.LOSE | FaultInjector.CORRUPT)) != 0) {
                // A single flipped bit never passes the ICRC/VCRC check (as for UD).
                counters.drop((drawn & FaultInjector.LOSE) != 0 ? DropReason.FAULT_LOSS : DropReason.FAULT_CORRUPT);
                return;
            }
            if ((drawn & FaultInjector.DUPLICATE) != 0) {
                counters.duplicated();
                copies = 2;
            }
            delay = FaultInjector.delayNanos(f, drawn, src.faultRandom);
        }
        if (delay == 0) {
            for (int i = 0; i < copies; i++) {
                deliver(sender, psn, first, last, payload, offset, length);
            }
            return;
        }
        faults.holdBack(copies, delay, payload, offset, length, copy -> deliver(sender, psn, first, last, copy, 0, length));
    }

    private void deliver(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload,
                         long offset, int length) {
        LoopPort dst = forwarding.route(sender.port, sender.remoteLid, SwitchForwarding.rcOctets(length), 1);
        if (dst == null) {
            return;
        }
        if (!dst.isActive()) {
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
        arrive(sender, dst, receiver, psn, first, last, payload, offset, length);
    }

    /** A packet at its queue pair (routed, checked): received, and its ACK or NAK carried back. */
    private void arrive(LoopRcQueuePair sender, LoopPort dst, LoopRcQueuePair receiver, int psn, boolean first,
                        boolean last, MemorySegment payload, long offset, int length) {
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
        tap.rcAck(receiver, sender, ack);
        // The ACK comes straight back, not hop by hop: it is not counted at the ports on the way,
        // and only the responder's faults can lose it.
        if (FaultInjector.acknowledgementLost(dst)) {
            counters.rcAckLost();
            return;
        }
        sender.acknowledged(ack);
    }
}
