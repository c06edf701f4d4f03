package ipoib.verbs.loopback.fabric;

import ipoib.api.PKey;
import ipoib.runtime.Clock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Instant;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * Shows the packets the fabric carries to the wire tap, as the header fields a wire would carry
 * them with: UD datagrams, RC packets and their acknowledgements, and management datagrams. Only
 * when a tap is set are payloads copied. A tap that throws is removed (and logged).
 *
 * <p>Timestamps are times of day: the one wall-clock reading is taken when the fabric is made,
 * later ones are that origin moved by the events loop's clock (so a manual clock moves them too).
 */
final class WireTapFeed {
    private static final Logger LOG = Logger.getLogger(WireTapFeed.class.getName());

    /** The GSI's well-known Q_Key (IBA 13.4.5): every MAD to and from QP1 carries it. */
    static final int GSI_QKEY = 0x8001_0000;
    /** The GSI's queue pair. */
    static final int GSI_QPN = 1;

    private final Clock clock;
    /** The wall-clock time (ns since the epoch) at {@link #clockAtOrigin}. */
    private final long epochNanosAtOrigin;
    private final long clockAtOrigin;
    private volatile WireTap tap;

    WireTapFeed(Clock clock) {
        this.clock = clock;
        Instant now = Instant.now();
        this.epochNanosAtOrigin = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.clockAtOrigin = clock.nanoTime();
    }

    void set(WireTap tap) {
        this.tap = tap;
    }

    /** Whether a tap is set (the data path then sends packets one by one, so it sees each). */
    boolean active() {
        return tap != null;
    }

    /** A UD datagram as it leaves the sender. */
    void datagram(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey, MemorySegment payload,
                  long offset, int length) {
        WireTap t = tap;
        if (t == null) {
            return;
        }
        try {
            t.packet(describe(sender, ah, remoteQpn, qkey, payload, offset, length));
        } catch (RuntimeException e) {
            removeFailed(e);
        }
    }

    /** The packet's header fields and a copy of its payload, as the wire would carry them. */
    WireTap.Packet describe(LoopQueuePair sender, LoopAddressHandle ah, int remoteQpn, int qkey,
                            MemorySegment payload, long offset, int length) {
        byte[] copy = new byte[length];
        MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
        return new WireTap.Packet(wallNanos(), sender.port.lidValue(),
                ah.dlid, ah.vector.serviceLevel(), ah.global, ah.global ? sender.port.gid(0) : null,
                ah.global ? ah.vector.destinationGid() : null, ah.vector.trafficClass(), ah.vector.flowLabel(),
                ah.vector.hopLimit(), sender.pkey.value(), remoteQpn, qkey, sender.qpnValue(), copy);
    }

    /** An RC SEND packet: its opcode from its place in the message (IBA 9.2). */
    void rcSend(LoopRcQueuePair sender, int psn, boolean first, boolean last, MemorySegment payload, long offset,
                int length) {
        WireTap t = tap;
        if (t == null) {
            return;
        }
        int opcode = first && last ? WireTap.RC_SEND_ONLY : first ? WireTap.RC_SEND_FIRST
                : last ? WireTap.RC_SEND_LAST : WireTap.RC_SEND_MIDDLE;
        byte[] copy = new byte[length];
        MemorySegment.copy(payload, ValueLayout.JAVA_BYTE, offset, copy, 0, length);
        try {
            // AckReq on the last packet of a message: the requester asks for the ACK that completes it.
            t.rcPacket(new WireTap.RcPacket(wallNanos(), sender.port.lidValue(), sender.remoteLid, sender.serviceLevel,
                    sender.pkey.value(), sender.remoteQpn, opcode, last, psn, -1, 0, copy));
        } catch (RuntimeException e) {
            removeFailed(e);
        }
    }

    /** The responder's ACK or NAK (an ACKNOWLEDGE packet with its AETH). */
    void rcAck(LoopRcQueuePair responder, LoopRcQueuePair requester, long ack) {
        WireTap t = tap;
        if (t == null) {
            return;
        }
        try {
            t.rcPacket(new WireTap.RcPacket(wallNanos(), responder.port.lidValue(), requester.port.lidValue(),
                    responder.serviceLevel, responder.pkey.value(), requester.qpnValue(), WireTap.RC_ACKNOWLEDGE, false,
                    RcAck.psn(ack), RcAck.syndrome(ack), RcAck.msn(ack), new byte[0]));
        } catch (RuntimeException e) {
            removeFailed(e);
        }
    }

    /**
     * A management datagram as the UD packet a wire would carry: QP1 to QP1 with the GSI Q_Key,
     * P_Key 0xffff (the GSI sends with P_Key index 0), SL 0, no GRH (the SM is on the local
     * subnet), the 256-octet MAD as the payload.
     */
    void management(int slid, int dlid, byte[] mad) {
        WireTap t = tap;
        if (t == null) {
            return;
        }
        try {
            t.packet(new WireTap.Packet(wallNanos(), slid, dlid, 0, false,
                    null, null, 0, 0, 0, PKey.DEFAULT.value(), GSI_QPN, GSI_QKEY, GSI_QPN, mad.clone()));
        } catch (RuntimeException e) {
            removeFailed(e);
        }
    }

    private void removeFailed(RuntimeException e) {
        LOG.log(Level.WARNING, "wire tap failed; removing it", e);
        tap = null;
    }

    /** Now, as nanoseconds since the epoch on the loop's clock. */
    private long wallNanos() {
        return epochNanosAtOrigin + (clock.nanoTime() - clockAtOrigin);
    }
}
