package ipoib.verbs.loopback.fabric;

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

    void transmit(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload, long offset,
                  int length) {
        LoopPort src = sender.port;
        counters.countSent(src);
        counters.rcSent();
        if (!src.isActive()) {
            counters.drop(DropReason.PORT_NOT_ACTIVE);
            SwitchForwarding.discarded(src.model, ipoib.verbs.loopback.subnet.PortDiscard.INACTIVE, 1);
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
