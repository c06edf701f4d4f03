package ipoib.bench;

import ipoib.api.Qpn;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.link.LinkPath;
import ipoib.link.internal.LinkEngine;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Two IPoIB interfaces on different HCAs of a loopback subnet, a resolved unicast path from the
 * first to the second, and a receiver that copies every frame's payload into a preallocated
 * buffer (the least an application does with a packet), counting deliveries.
 */
final class LinkPair implements AutoCloseable {
    /** IEEE 802 local experimental EtherType: frames only the benchmark handles. */
    static final int ETHERTYPE = 0x88B5;
    /** Frames in flight at most, below the receive queue depth, so that none is dropped. */
    static final int WINDOW = 128;

    final LoopbackSubnet subnet;
    private final boolean ownsSubnet;
    final LinkEngine sender;
    final LinkEngine receiver;
    final LinkPath path;
    final Qpn receiverQpn;
    /** The receiver's whole address: with the RC flag in connected mode, so that frames go over RC. */
    final ipoib.api.LinkAddress receiverAddress;
    private final int window;
    /** Pinned for a pair of its own subnet (the packet-path rows), not for the pairs of the interfaces rows. */
    final Deliveries delivered;
    private final MemorySegment sink = Arena.ofAuto().allocate(65536);
    private long sent;

    LinkPair() throws Exception {
        this(false);
    }

    /**
     * @param connected both interfaces in connected mode (RC, MTU 65 520), with a connection set up
     *     before the trial; else datagram mode
     */
    LinkPair(boolean connected) throws Exception {
        this(new LoopbackSubnet(FabricConfig.defaults(), 200, 5), 0, true, connected);
    }

    /**
     * The pair {@code index} of a subnet with at least {@code 2 * (index + 1)} HCAs, in datagram
     * mode: interfaces {@code bench<2i>} on {@code loop<2i>} and {@code bench<2i+1>} on
     * {@code loop<2i+1>}.
     */
    LinkPair(LoopbackSubnet subnet, int index, boolean ownsSubnet) throws Exception {
        this(subnet, index, ownsSubnet, false);
    }

    private LinkPair(LoopbackSubnet subnet, int index, boolean ownsSubnet, boolean connected) throws Exception {
        this.subnet = subnet;
        this.ownsSubnet = ownsSubnet;
        this.delivered = new Deliveries(ownsSubnet);
        FrameHandler count = (link, frame) -> {
            MemorySegment.copy(frame.buffer(), frame.payloadOffset(), sink, 0, frame.payloadLength());
            delivered.increment();
        };
        sender = BenchLinks.open(subnet, "bench" + 2 * index, "loop" + 2 * index, Map.of());
        receiver = BenchLinks.open(subnet, "bench" + (2 * index + 1), "loop" + (2 * index + 1),
                Map.of(ETHERTYPE, count));
        if (connected) {
            BenchLinks.connectedMode(sender);
            BenchLinks.connectedMode(receiver);
        }
        // An RC connection holds at most as many messages as the receiver's shared queue has buffers.
        window = connected ? 32 : WINDOW;
        IpoibLink a = sender;
        IpoibLink b = receiver;
        path = a.acquirePath(b.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
        receiverQpn = b.qpn();
        receiverAddress = b.address();
        if (connected) {
            sendOne(MemorySegment.ofArray(new byte[16]));
            drain();
        }
    }

    /** Sends one frame, waiting while the window is full or no send buffer is free. */
    long windowWaits;
    long retries;

    void sendOne(MemorySegment payload) {
        awaitWindow(1);
        IpoibLink a = sender;
        TransmitResult r;
        while ((r = a.sendUnicast(path, receiverAddress, ETHERTYPE, payload)) != TransmitResult.SENT
                && r != TransmitResult.QUEUED) {
            retries++;
            Thread.onSpinWait();
        }
        sent++;
    }

    /**
     * Sends {@code n} frames as one transmit burst (one post list), waiting first until the
     * window has room for all of them.
     */
    void sendBurst(MemorySegment payload, int n) {
        awaitWindow(n);
        IpoibLink a = sender;
        a.beginBurst();
        try {
            for (int i = 0; i < n; i++) {
                while (a.sendUnicast(path, receiverAddress, ETHERTYPE, payload) != TransmitResult.SENT) {
                    retries++;
                    a.endBurst(); // post what is queued, so that buffers come back
                    Thread.onSpinWait();
                    a.beginBurst();
                }
            }
        } finally {
            a.endBurst();
        }
        sent += n;
    }

    /** Waits until {@code n} more frames fit the window. */
    void awaitWindow(int n) {
        long needed = sent + n - window;
        if (delivered.get() < needed) {
            long before = timeWaits ? THREADS.getCurrentThreadCpuTime() : 0;
            // Woken when half the window is free again.
            windowWaits += delivered.awaitAtLeast(needed, sent + n - window / 2);
            if (timeWaits) {
                cpuInWaits += THREADS.getCurrentThreadCpuTime() - before;
                waitsTimed++;
            }
        }
    }

    private static final java.lang.management.ThreadMXBean THREADS = java.lang.management.ManagementFactory
            .getThreadMXBean();
    /**
     * For {@link PacketPathProfile}: the sending thread's CPU time in window waits, so that the
     * CPU time per frame of the send path itself can be told apart from the waits (which the
     * load of a shared machine stretches).
     */
    boolean timeWaits;
    long cpuInWaits;
    long waitsTimed;

    /** Counts frames the caller sent itself (after {@link #awaitWindow}). */
    void sent(int n) {
        sent += n;
    }

    /** Waits until every frame sent was delivered. */
    void drain() {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (delivered.get() < sent && System.nanoTime() < deadline) {
            Thread.onSpinWait();
        }
    }

    @Override
    public void close() {
        path.release();
        sender.close();
        receiver.close();
        if (ownsSubnet) {
            subnet.close();
        }
    }
}
