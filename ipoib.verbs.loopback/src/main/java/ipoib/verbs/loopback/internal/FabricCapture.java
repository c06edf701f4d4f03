package ipoib.verbs.loopback.internal;

import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngWriter;
import ipoib.codec.pcap.TimestampResolution;
import ipoib.runtime.CaptureFiles;
import ipoib.runtime.Threads;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.verbs.loopback.fabric.IbaPackets;
import ipoib.verbs.loopback.fabric.WireTap;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A capture of every packet on the fabric as full IBA packets (LRH … VCRC) in pcapng, ERF type
 * 21, which Wireshark and tshark decode: UD datagrams and MADs, RC SENDs and their ACKs/NAKs. The wire tap only queues packets (bounded; drops are
 * counted); a writer thread renders and writes them, so file I/O stays off the data path. The
 * capture ends when {@code limit} packets have been queued for the file: dropped ones do not count.
 */
final class FabricCapture implements WireTap, AutoCloseable {
    private static final int QUEUE = 4096;

    private final Fabric fabric;
    private final Path file;
    private final long limit;
    /** {@link WireTap.Packet}s and {@link WireTap.RcPacket}s in wire order. */
    private final BlockingQueue<Object> queue = new ArrayBlockingQueue<>(QUEUE);
    /** Guarded by this: packets queued for the file, at most {@code limit}. */
    private long queued;
    private final AtomicLong dropped = new AtomicLong();
    private final AtomicLong written = new AtomicLong();
    private final PcapngWriter writer;
    private final int interfaceId;
    private final Thread thread;
    private volatile boolean stopping;
    private volatile IOException failure;

    FabricCapture(Fabric fabric, Path file, long limit) throws IOException {
        this.fabric = fabric;
        this.file = file;
        this.limit = limit;
        this.writer = new PcapngWriter(CaptureFiles.in(file.getParent()).create(file));
        this.interfaceId = writer.addInterface(LinkType.ERF, 65535, TimestampResolution.NANOSECONDS, "loopback-fabric");
        this.thread = Threads.create("loopback-capture", true, this::drain);
        this.thread.start();
        fabric.setWireTap(this);
    }

    @Override
    public void packet(WireTap.Packet packet) {
        offer(packet);
    }

    @Override
    public void rcPacket(WireTap.RcPacket packet) {
        offer(packet);
    }

    /** Senders call this concurrently: the count and the queue change together. */
    private synchronized void offer(Object packet) {
        if (queued >= limit) {
            return;
        }
        if (!queue.offer(packet)) {
            dropped.incrementAndGet();
            return;
        }
        if (++queued == limit) {
            fabric.setWireTap(null);
            stopping = true;
        }
    }

    private void drain() {
        try {
            while (!(stopping && queue.isEmpty())) {
                Object p = queue.poll(100, TimeUnit.MILLISECONDS);
                if (p instanceof WireTap.Packet ud) {
                    write(ud.timeNanos(), IbaPackets.render(ud));
                } else if (p instanceof WireTap.RcPacket rc) {
                    write(rc.timeNanos(), IbaPackets.renderRc(rc));
                }
            }
        } catch (IOException e) {
            failure = e;
            fabric.setWireTap(null);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            try {
                writer.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
        }
    }

    private void write(long timeNanos, byte[] wire) throws IOException {
        writer.writeInfiniband(interfaceId, timeNanos, MemorySegment.ofArray(wire), 0, wire.length);
        written.incrementAndGet();
    }

    boolean isRunning() {
        return thread.isAlive();
    }

    /** Stops the capture, writes what is queued, and says what was captured. */
    @Override
    public void close() {
        fabric.setWireTap(null);
        stopping = true;
        try {
            thread.join(10_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    String summary() {
        return "capture " + file + ": " + written.get() + " packets written, " + dropped.get() + " dropped (queue full)"
                + (failure != null ? ", failed: " + failure.getMessage() : "");
    }
}
