package ipoib.link.internal.capture;

import ipoib.api.Gid;
import ipoib.codec.pcap.IpoibPseudoHeader;
import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngWriter;
import ipoib.codec.pcap.TimestampResolution;
import ipoib.runtime.CaptureFiles;
import ipoib.runtime.Threads;
import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A capture of one link's frames in both directions as pcapng, LINKTYPE_IPOIB (242): each frame
 * behind its 40-octet pseudo-header (the GRH of a received frame that carried one, else the
 * destination link-layer address), on two interfaces, {@code <link> in} and {@code <link> out}.
 *
 * <p>The data path only copies a frame into a free slot of a fixed ring (claim, fill, commit:
 * no allocation, two short critical sections); a writer thread renders the slots to the file in
 * commit order, so file I/O never runs on a sender or on the receive thread. When every slot is
 * taken the frame is not captured and counted as dropped.
 */
public final class LinkCapture implements AutoCloseable {
    /** Slots of the ring: frames that may wait for the writer. */
    static final int SLOTS = 256;
    /** A slot holds the pseudo-header, the 4-octet IPoIB header and a 4096-octet IB MTU of payload. */
    static final int SLOT_SIZE = IpoibPseudoHeader.LENGTH + 4 + 4096;

    private final String link;
    private final Path file;
    private final PcapngWriter writer;
    private final int inbound;
    private final int outbound;
    private final MemorySegment slots = MemorySegment.ofArray(new byte[SLOTS * SLOT_SIZE]);
    private final int[] frameLength = new int[SLOTS];
    private final long[] timestamp = new long[SLOTS];
    private final boolean[] received = new boolean[SLOTS];
    private final long epochNanosAtStart;
    private final long nanoTimeAtStart;
    private final Runnable onFinished;
    private final Thread thread;

    // Guarded by lock: the free slots (a stack), the committed slots (a FIFO), the budget.
    private final Object lock = new Object();
    private final int[] free = new int[SLOTS];
    private int freeTop;
    private final int[] ready = new int[SLOTS];
    private int readyHead;
    private int readyCount;
    private long remaining;
    private int inFlight;
    private long dropped;
    private long writtenIn;
    private long writtenOut;
    private boolean stopping;
    private volatile IOException failure;
    /** The file is closed: nothing more will be written. */
    private volatile boolean ended;

    /**
     * Creates the file (new, not through a symbolic link: {@link CaptureFiles}) and starts the writer thread.
     *
     * @param limit frames to capture before the capture ends by itself
     * @param onFinished run once on the writer thread when the capture has ended
     */
    LinkCapture(String link, Path file, long limit, Runnable onFinished) throws IOException {
        this.link = link;
        this.file = file;
        this.remaining = limit;
        this.onFinished = onFinished;
        this.writer = new PcapngWriter(CaptureFiles.in(file.getParent()).create(file));
        try {
            // Snap length of a slot: a connected-mode frame (up to 65 524 octets) is kept to its first
            // 4 100 octets and recorded with its true length, as tcpdump -s records a cut packet.
            this.inbound = writer.addInterface(LinkType.IPOIB, SLOT_SIZE, TimestampResolution.NANOSECONDS, link + " in");
            this.outbound = writer.addInterface(LinkType.IPOIB, SLOT_SIZE, TimestampResolution.NANOSECONDS, link + " out");
        } catch (IOException | RuntimeException e) {
            writer.close();
            throw e;
        }
        Instant now = Instant.now();
        this.epochNanosAtStart = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        this.nanoTimeAtStart = System.nanoTime();
        for (int i = 0; i < SLOTS; i++) {
            free[i] = i;
        }
        freeTop = SLOTS;
        this.thread = Threads.create("ipoib-capture-" + link, true, this::writeLoop);
        thread.start();
    }

    Path file() {
        return file;
    }

    // ---- data path -----------------------------------------------------------------------------------

    /** A free slot for one frame, or -1 (ring full: counted; budget used up or stopping: not counted). */
    public int claim() {
        synchronized (lock) {
            if (stopping || remaining <= 0) {
                return -1;
            }
            if (freeTop == 0) {
                dropped++;
                return -1;
            }
            remaining--;
            inFlight++;
            return free[--freeTop];
        }
    }

    /** Fills a claimed slot with a frame being sent: the address form of the destination, then the frame. */
    public void fillSent(int slot, int destinationQpn, Gid destination, MemorySegment frame, long offset, int length) {
        long at = (long) slot * SLOT_SIZE;
        if (destination == null) {
            IpoibPseudoHeader.writeDestination(slots, at, destinationQpn, 0, 0);
        } else {
            IpoibPseudoHeader.writeDestination(slots, at, destinationQpn, destination.prefix(), destination.interfaceId());
        }
        fill(slot, false, frame, offset, length);
    }

    /**
     * Fills a claimed slot with a received frame: the GRH as the receive buffer holds it when the
     * datagram carried one, with the sender's QPN where Wireshark reads the Source QPN; else the
     * own address (QPN and GID) as the destination.
     */
    public void fillReceived(int slot, MemorySegment buffer, long grhOffset, boolean grh, int sourceQpn, int ownQpn,
                      Gid ownGid, long frameOffset, int length) {
        long at = (long) slot * SLOT_SIZE;
        if (grh) {
            MemorySegment.copy(buffer, grhOffset, slots, at, IpoibPseudoHeader.LENGTH);
            IpoibPseudoHeader.putSourceQpn(slots, at, sourceQpn & 0xFF_FFFF);
        } else {
            IpoibPseudoHeader.writeDestination(slots, at, ownQpn, ownGid.prefix(), ownGid.interfaceId());
        }
        fill(slot, true, buffer, frameOffset, length);
    }

    private void fill(int slot, boolean in, MemorySegment frame, long offset, int length) {
        int kept = Math.min(length, SLOT_SIZE - IpoibPseudoHeader.LENGTH);
        MemorySegment.copy(frame, offset, slots, (long) slot * SLOT_SIZE + IpoibPseudoHeader.LENGTH, kept);
        frameLength[slot] = length; // the writer keeps the snap length (the slot) and records this one
        received[slot] = in;
    }

    /** Hands a filled slot to the writer, stamped in the order the file gets it (times never go back). */
    public void commit(int slot) {
        synchronized (lock) {
            timestamp[slot] = epochNanosAtStart + (System.nanoTime() - nanoTimeAtStart);
            ready[(readyHead + readyCount) % SLOTS] = slot;
            readyCount++;
            inFlight--;
            lock.notifyAll();
        }
    }

    // ---- writer thread -------------------------------------------------------------------------------

    private void writeLoop() {
        int[] batch = new int[SLOTS];
        try {
            while (true) {
                int n;
                synchronized (lock) {
                    while (readyCount == 0 && !finished()) {
                        lock.wait(100);
                    }
                    if (readyCount == 0) {
                        break;
                    }
                    n = readyCount;
                    for (int i = 0; i < n; i++) {
                        batch[i] = ready[(readyHead + i) % SLOTS];
                    }
                    readyHead = (readyHead + n) % SLOTS;
                    readyCount = 0;
                }
                for (int i = 0; i < n; i++) {
                    int slot = batch[i];
                    long at = (long) slot * SLOT_SIZE;
                    writer.writeIpoib(received[slot] ? inbound : outbound, timestamp[slot], slots, at, slots,
                            at + IpoibPseudoHeader.LENGTH, frameLength[slot]);
                }
                synchronized (lock) {
                    for (int i = 0; i < n; i++) {
                        free[freeTop++] = batch[i];
                        if (received[batch[i]]) {
                            writtenIn++;
                        } else {
                            writtenOut++;
                        }
                    }
                }
            }
        } catch (IOException e) {
            failure = e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            synchronized (lock) {
                stopping = true;
            }
            try {
                writer.close();
            } catch (IOException e) {
                if (failure == null) {
                    failure = e;
                }
            }
            ended = true;
            onFinished.run();
        }
    }

    /** Whether nothing more can come: stopped, or the budget is used and no claimed slot is pending. */
    private boolean finished() {
        return stopping || (remaining <= 0 && inFlight == 0);
    }

    boolean isRunning() {
        return !ended;
    }

    /** Stops capturing, writes what was committed, and waits for the file to be closed. */
    @Override
    public void close() {
        synchronized (lock) {
            stopping = true;
            lock.notifyAll();
        }
        if (Thread.currentThread() != thread) {
            try {
                thread.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }

    /** What a capture wrote and dropped, for {@code ipoib:capture --json}; {@code failure} null unless it failed. */
    public record Status(String link, Path file, boolean running, long received, long sent, long dropped,
            String failure) {}

    /** What the capture wrote and dropped so far. */
    Status status() {
        synchronized (lock) {
            return new Status(link, file, !ended, writtenIn, writtenOut, dropped,
                    failure == null ? null : failure.getMessage());
        }
    }

    /** What the capture wrote and dropped. */
    String summary() {
        synchronized (lock) {
            return "capture of " + link + " to " + file + (ended ? " (ended)" : " (running)") + ": "
                    + (writtenIn + writtenOut) + " frames written (" + writtenIn + " received, " + writtenOut + " sent), "
                    + dropped + " dropped (capture buffer full)"
                    + (failure != null ? ", failed: " + failure.getMessage() : "");
        }
    }

    long dropped() {
        synchronized (lock) {
            return dropped;
        }
    }
}
