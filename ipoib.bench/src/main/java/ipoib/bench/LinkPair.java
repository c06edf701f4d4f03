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
import java.util.concurrent.atomic.AtomicLong;

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
    final LinkEngine sender;
    final LinkEngine receiver;
    final LinkPath path;
    final Qpn receiverQpn;
    /** The receiver's whole address: with the RC flag in connected mode, so that frames go over RC. */
    final ipoib.api.LinkAddress receiverAddress;
    private final int window;
    final AtomicLong delivered = new AtomicLong();
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
        subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
        FrameHandler count = (link, frame) -> {
            MemorySegment.copy(frame.buffer(), frame.payloadOffset(), sink, 0, frame.payloadLength());
            delivered.lazySet(delivered.get() + 1);
        };
        sender = BenchLinks.open(subnet, "bench0", "loop0", Map.of());
        receiver = BenchLinks.open(subnet, "bench1", "loop1", Map.of(ETHERTYPE, count));
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
        while (sent - delivered.get() >= window) {
            windowWaits++;
            Thread.onSpinWait();
        }
        IpoibLink a = sender;
        TransmitResult r;
        while ((r = a.sendUnicast(path, receiverAddress, ETHERTYPE, payload)) != TransmitResult.SENT
                && r != TransmitResult.QUEUED) {
            retries++;
            Thread.onSpinWait();
        }
        sent++;
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
        subnet.close();
    }
}
