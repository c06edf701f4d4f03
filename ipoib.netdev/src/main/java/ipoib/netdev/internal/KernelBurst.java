package ipoib.netdev.internal;

import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import java.util.function.IntConsumer;
import java.util.function.IntSupplier;

/**
 * The packets the kernel has queued on the device, forwarded back to back inside one transmit
 * burst of the link ({@code IpoibLink.beginBurst}/{@code endBurst}), so that they leave as one
 * post list: the batch a qdisc hands a driver with Linux's {@code xmit_more}. The reader does not
 * wait for more: the burst ends with the first read that finds nothing, or at {@link #MAX}.
 * Allocation-free: the bridge makes its functions once.
 */
final class KernelBurst {
    /** Packets in one burst at most (bounds the latency of the first one). */
    static final int MAX = 16;

    private final BooleanSupplier begin;
    private final Runnable end;
    private final IntSupplier read;
    private final IntConsumer forward;
    private final LongAdder batched;

    /**
     * @param begin   starts the link's burst; false when none started (then {@code end} is not called)
     * @param end     posts the burst
     * @param read    the next packet's length, or 0 (nothing read, try again), -1 (nothing queued),
     *                -2 (read error), as {@link Tun#read} returns
     * @param forward hands the packet just read to the stack
     * @param batched counts the packets that went behind another in a burst ({@code tx_batched})
     */
    KernelBurst(BooleanSupplier begin, Runnable end, IntSupplier read, IntConsumer forward, LongAdder batched) {
        this.begin = begin;
        this.end = end;
        this.read = read;
        this.forward = forward;
        this.batched = batched;
    }

    /**
     * Forwards the packet of {@code length} octets just read and those queued behind it.
     *
     * @return the read that ended the burst (0 when the burst was full: read again at once)
     */
    int forward(int length) {
        boolean burst = begin.getAsBoolean();
        try {
            int n = length;
            for (int count = 1; ; count++) {
                forward.accept(n);
                if (count == MAX) {
                    return 0;
                }
                n = read.getAsInt();
                if (n <= 0) {
                    return n;
                }
                batched.increment();
            }
        } finally {
            if (burst) {
                end.run();
            }
        }
    }
}
