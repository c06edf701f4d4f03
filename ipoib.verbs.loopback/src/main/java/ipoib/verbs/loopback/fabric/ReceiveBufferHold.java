package ipoib.verbs.loopback.fabric;

import java.time.Duration;
import java.util.concurrent.locks.LockSupport;

/**
 * The fabric's delivery policy for a unicast UD datagram whose destination queue pair has no
 * posted receive buffer: the sending thread is held until the receiver posts one, for at most a
 * bound, and only then is the datagram dropped ({@link DropReason#NO_RECEIVE_BUFFER}, counted at
 * the receiving port).
 *
 * <p>Why: on InfiniBand a clean fabric does not drop. The link layer is credit-based (IBA vol. 1
 * §7.9): a port sends only into buffer space the other end of the link advertised, so congestion
 * holds the sender back instead of losing packets. What remains is the receiving HCA: a UD
 * datagram that finds no receive work request is dropped there (mlx5 counts it as
 * {@code out_of_buffer}), which Linux avoids by keeping its receive ring posted from NAPI
 * ({@code ipoib_ib.c}, {@code ipoib_rx_poll} and {@code ipoib_ib_handle_rx_wc}: every completion
 * re-posts its buffer; 256 buffers by default, {@code recv_queue_size} up to 8192). The
 * loopback runs the receiving HCA's work on the
 * sender's thread, so a receiver whose thread is behind (it writes each frame into a TUN device:
 * the receiving kernel's TCP runs on that thread) would lose what a real HCA, draining at line
 * rate into a ring re-posted by NAPI, would rarely lose. Holding the sender for a bounded time
 * makes the loopback behave as the credit-based link would in front of a receiver that keeps up,
 * and turns a slow receiver into backpressure on the sender (its thread, e.g. the TUN bridge's
 * reader, stops reading, as Linux's {@code ipoib_send} stops the queue with
 * {@code netif_stop_queue} when the send ring is full). The bound keeps a receiver that stopped
 * (or two receive threads sending to each other) from stopping senders for longer than that.
 * Multicast is never held: one slow member would stall the group.
 */
final class ReceiveBufferHold {
    /**
     * The default bound: well below TCP's minimum retransmission timeout (200 ms on Linux), and
     * long enough for a receive thread waiting for its CPU on a loaded machine (at load 20 on two
     * CPUs, 100 MB of TCP lost 0.05 % of its segments with 5 ms, none with 50 ms).
     */
    static final Duration DEFAULT = Duration.ofMillis(50);
    private static final int SPINS = 64;
    private static final int YIELDS = 16;
    private static final long PARK_NANOS = 20_000;

    private volatile long boundNanos = DEFAULT.toNanos();

    /** How long a sender may be held; zero drops at once, as a UD receiver without buffers on hardware. */
    void bound(Duration bound) {
        if (bound.isNegative()) {
            throw new IllegalArgumentException("receive-buffer hold must be zero or positive, not " + bound);
        }
        boundNanos = bound.toNanos();
    }

    Duration bound() {
        return Duration.ofNanos(boundNanos);
    }

    /**
     * Waits until {@code receiver} has a posted receive buffer, or the bound passes, or it stops
     * receiving (its state no longer RTR/RTS).
     *
     * @return whether it has a buffer now
     */
    boolean await(LoopQueuePair receiver) {
        long bound = boundNanos;
        if (bound == 0) {
            return false;
        }
        long deadline = System.nanoTime() + bound;
        for (int round = 0; ; round++) {
            if (receiver.hasPostedReceive()) {
                return true;
            }
            if (!receiver.receives()) {
                return false;
            }
            if (round < SPINS) {
                Thread.onSpinWait();
            } else if (round < SPINS + YIELDS) {
                CoreYield.yieldCore();
            } else if (System.nanoTime() - deadline >= 0) {
                return receiver.hasPostedReceive();
            } else {
                LockSupport.parkNanos(PARK_NANOS);
            }
        }
    }
}
