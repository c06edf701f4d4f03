package ipoib.codec.pcap;

import java.io.Closeable;
import java.io.Flushable;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.WritableByteChannel;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Writes a pcapng capture (IETF draft-ietf-opsawg-pcapng: Section Header Block, Interface
 * Description Blocks, Enhanced Packet Blocks; little-endian) that Wireshark and tshark open.
 *
 * <p>Two kinds of interface serve this toolkit: {@link LinkType#IPOIB} for IPoIB frames with their
 * 40-octet {@link IpoibPseudoHeader} ({@link #writeIpoib}), and {@link LinkType#ERF} for whole IBA
 * packets, each behind an ERF type 21 header ({@link #writeInfiniband}); {@link #writePacket}
 * writes anything else as given. Timestamps are nanoseconds since 1970, stored in the unit the
 * interface declares with {@code if_tsresol}.
 *
 * <p>Output goes through one buffer of fixed size to the caller's channel or stream: memory stays
 * bounded whatever the packet sizes, and after the first blocks no write allocates. Blocks reach
 * the channel when the buffer fills, on {@link #flush()} and on {@link #close()}. A writer is used
 * by one thread at a time and takes no lock (the codec holds none): the captures of the link and of
 * the loopback fabric hand their packets to one writing thread.
 */
public final class PcapngWriter implements Closeable, Flushable {
    /** Default buffer size. */
    public static final int DEFAULT_BUFFER_SIZE = 64 * 1024;
    /** Smallest buffer accepted: room for every block header and option this writer emits. */
    public static final int MIN_BUFFER_SIZE = 512;

    private static final int SECTION_HEADER_BLOCK = 0x0A0D0D0A;
    private static final int INTERFACE_DESCRIPTION_BLOCK = 0x00000001;
    private static final int ENHANCED_PACKET_BLOCK = 0x00000006;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int OPT_END = 0;
    private static final int OPT_SHB_USERAPPL = 4;
    private static final int OPT_IF_NAME = 2;
    private static final int OPT_IF_TSRESOL = 9;
    private static final int EPB_FIXED_LENGTH = 32;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final WritableByteChannel channel;
    private final ByteBuffer buffer;
    private final MemorySegment bufferSegment;
    private final MemorySegment erfScratch = MemorySegment.ofArray(new byte[ErfHeader.LENGTH]);
    private int fill;
    private int[] linkTypes = new int[4];
    private int[] snapLengths = new int[4];
    private TimestampResolution[] resolutions = new TimestampResolution[4];
    private int interfaceCount;
    private int captureBudget;
    private int packetCaptured;
    private boolean closed;

    /**
     * A writer to a channel with a {@value #DEFAULT_BUFFER_SIZE}-octet buffer. The Section Header
     * Block is written at once (into the buffer).
     */
    public PcapngWriter(WritableByteChannel channel) {
        this(channel, DEFAULT_BUFFER_SIZE);
    }

    /**
     * A writer to a channel with a buffer of {@code bufferSize} octets.
     *
     * @throws IllegalArgumentException when {@code bufferSize} is below {@value #MIN_BUFFER_SIZE}
     */
    public PcapngWriter(WritableByteChannel channel, int bufferSize) {
        if (channel == null) {
            throw new IllegalArgumentException("channel must not be null");
        }
        if (bufferSize < MIN_BUFFER_SIZE) {
            throw new IllegalArgumentException("buffer of " + bufferSize + " octets: at least " + MIN_BUFFER_SIZE);
        }
        this.channel = channel;
        this.buffer = ByteBuffer.allocate(bufferSize);
        this.bufferSegment = MemorySegment.ofBuffer(buffer);
        writeSectionHeader();
    }

    /** A writer to an output stream (closed with the writer). */
    public static PcapngWriter to(OutputStream out) {
        if (out == null) {
            throw new IllegalArgumentException("output stream must not be null");
        }
        return new PcapngWriter(Channels.newChannel(out));
    }

    /**
     * Declares an interface (an Interface Description Block).
     *
     * @param linkType the LINKTYPE_ value, e.g. {@link LinkType#IPOIB}
     * @param snapLength the largest number of octets kept of each packet, 0 for no limit
     * @param resolution the unit of this interface's timestamps
     * @param name the {@code if_name} option, or null for none
     * @return the interface ID to pass to the packet methods (0, 1, ... in order)
     * @throws IOException when the channel fails
     */
    public int addInterface(int linkType, int snapLength, TimestampResolution resolution, String name)
            throws IOException {
        ensureOpen();
        if (linkType < 0 || linkType > 0xFFFF) {
            throw new IllegalArgumentException("link type " + linkType + " does not fit 16 bits");
        }
        if (snapLength < 0) {
            throw new IllegalArgumentException("snap length " + snapLength + " is negative");
        }
        if (resolution == null) {
            throw new IllegalArgumentException("timestamp resolution must not be null");
        }
        byte[] nameBytes = name == null ? new byte[0] : name.getBytes(StandardCharsets.UTF_8);
        if (nameBytes.length > MIN_BUFFER_SIZE - 64) {
            throw new IllegalArgumentException("interface name of " + nameBytes.length + " octets is too long");
        }
        int nameOption = nameBytes.length == 0 ? 0 : 4 + padded(nameBytes.length);
        int total = 8 + 8 + nameOption + 8 + 4 + 4;
        reserve(total);
        putInt(INTERFACE_DESCRIPTION_BLOCK);
        putInt(total);
        putShort(linkType);
        putShort(0);
        putInt(snapLength);
        if (nameOption != 0) {
            putOption(OPT_IF_NAME, nameBytes);
        }
        putShort(OPT_IF_TSRESOL);
        putShort(1);
        putInt(resolution.exponent()); // the octet, then three octets of padding
        putShort(OPT_END);
        putShort(0);
        putInt(total);

        if (interfaceCount == linkTypes.length) {
            linkTypes = Arrays.copyOf(linkTypes, interfaceCount * 2);
            snapLengths = Arrays.copyOf(snapLengths, interfaceCount * 2);
            resolutions = Arrays.copyOf(resolutions, interfaceCount * 2);
        }
        linkTypes[interfaceCount] = linkType;
        snapLengths[interfaceCount] = snapLength;
        resolutions[interfaceCount] = resolution;
        return interfaceCount++;
    }

    /**
     * Writes one packet as given (an Enhanced Packet Block), cut to the interface's snap length.
     *
     * @throws IllegalArgumentException for an unknown interface or a negative length
     * @throws IOException when the channel fails
     */
    public void writePacket(int interfaceId, long epochNanos, MemorySegment data, long offset, int length)
            throws IOException {
        ensureOpen();
        checkInterface(interfaceId, -1);
        checkLength(length);
        beginPacket(interfaceId, epochNanos, length);
        append(data, offset, length);
        endPacket();
    }

    /**
     * Writes an IPoIB frame to a {@link LinkType#IPOIB} interface: the 40-octet pseudo-header at
     * {@code pseudoHeaderOffset}, then the frame (4-octet IPoIB header and payload).
     *
     * @throws IllegalArgumentException for an unknown interface, one of another link type, or a
     *                                  negative length
     * @throws IOException when the channel fails
     */
    public void writeIpoib(int interfaceId, long epochNanos, MemorySegment pseudoHeader,
                                        long pseudoHeaderOffset, MemorySegment frame, long frameOffset,
                                        int frameLength) throws IOException {
        ensureOpen();
        checkInterface(interfaceId, LinkType.IPOIB);
        checkLength(frameLength);
        beginPacket(interfaceId, epochNanos, IpoibPseudoHeader.LENGTH + frameLength);
        append(pseudoHeader, pseudoHeaderOffset, IpoibPseudoHeader.LENGTH);
        append(frame, frameOffset, frameLength);
        endPacket();
    }

    /**
     * Writes a whole IBA packet (LRH through VCRC) to a {@link LinkType#ERF} interface, behind an
     * ERF header of type 21 (INFINIBAND) with the same timestamp, varying-length flag, rlen of
     * header and packet, and wlen of the packet.
     *
     * @throws IllegalArgumentException for an unknown interface, one of another link type, or a
     *                                  length beyond what ERF's 16-bit rlen holds
     * @throws IOException when the channel fails
     */
    public void writeInfiniband(int interfaceId, long epochNanos, MemorySegment packet, long offset,
                                             int length) throws IOException {
        ensureOpen();
        checkInterface(interfaceId, LinkType.ERF);
        if (length < 0 || length > 0xFFFF - ErfHeader.LENGTH) {
            throw new IllegalArgumentException("IBA packet of " + length + " octets does not fit an ERF record");
        }
        int recordLength = ErfHeader.LENGTH + length;
        ErfHeader.write(erfScratch, 0, ErfHeader.timestampOf(epochNanos), ErfHeader.TYPE_INFINIBAND,
                ErfHeader.FLAG_VARYING_LENGTH, recordLength, 0, length);
        beginPacket(interfaceId, epochNanos, recordLength);
        append(erfScratch, 0, ErfHeader.LENGTH);
        append(packet, offset, length);
        endPacket();
    }

    /** Passes every buffered block to the channel. */
    @Override
    public void flush() throws IOException {
        ensureOpen();
        drain();
    }

    /** Flushes and closes the channel. Closing twice does nothing. */
    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        try {
            drain();
        } finally {
            channel.close();
        }
    }

    private void writeSectionHeader() {
        byte[] application = "ipoib codec".getBytes(StandardCharsets.US_ASCII);
        int total = 8 + 16 + 4 + padded(application.length) + 4 + 4;
        putInt(SECTION_HEADER_BLOCK);
        putInt(total);
        putInt(BYTE_ORDER_MAGIC);
        putShort(1); // version 1.0
        putShort(0);
        putInt(-1); // section length unknown (64 bits of ones)
        putInt(-1);
        putOption(OPT_SHB_USERAPPL, application);
        putShort(OPT_END);
        putShort(0);
        putInt(total);
    }

    private void beginPacket(int interfaceId, long epochNanos, int originalLength) throws IOException {
        int snap = snapLengths[interfaceId];
        int captured = snap == 0 ? originalLength : Math.min(originalLength, snap);
        long units = resolutions[interfaceId].toUnits(epochNanos);
        reserve(EPB_FIXED_LENGTH - 4);
        putInt(ENHANCED_PACKET_BLOCK);
        putInt(EPB_FIXED_LENGTH + padded(captured));
        putInt(interfaceId);
        putInt((int) (units >>> 32));
        putInt((int) units);
        putInt(captured);
        putInt(originalLength);
        captureBudget = captured;
        packetCaptured = captured;
    }

    /** Copies up to the remaining capture budget, draining the buffer as it fills. */
    private void append(MemorySegment source, long offset, int length) throws IOException {
        int remaining = Math.min(length, captureBudget);
        captureBudget -= remaining;
        long from = offset;
        while (remaining > 0) {
            if (fill == buffer.capacity()) {
                drain();
            }
            int chunk = Math.min(remaining, buffer.capacity() - fill);
            MemorySegment.copy(source, from, bufferSegment, fill, chunk);
            fill += chunk;
            from += chunk;
            remaining -= chunk;
        }
    }

    private void endPacket() throws IOException {
        int captured = packetCaptured;
        reserve(8);
        for (int pad = padded(captured) - captured; pad > 0; pad--) {
            bufferSegment.set(ValueLayout.JAVA_BYTE, fill++, (byte) 0);
        }
        putInt(EPB_FIXED_LENGTH + padded(captured));
    }

    private void putOption(int code, byte[] value) {
        putShort(code);
        putShort(value.length);
        MemorySegment.copy(MemorySegment.ofArray(value), 0, bufferSegment, fill, value.length);
        fill += value.length;
        for (int pad = padded(value.length) - value.length; pad > 0; pad--) {
            bufferSegment.set(ValueLayout.JAVA_BYTE, fill++, (byte) 0);
        }
    }

    private void putInt(int value) {
        bufferSegment.set(INT, fill, value);
        fill += 4;
    }

    private void putShort(int value) {
        bufferSegment.set(SHORT, fill, (short) value);
        fill += 2;
    }

    private void reserve(int octets) throws IOException {
        if (buffer.capacity() - fill < octets) {
            drain();
        }
    }

    private void drain() throws IOException {
        buffer.clear().limit(fill);
        while (buffer.hasRemaining()) {
            channel.write(buffer);
        }
        fill = 0;
    }

    private void ensureOpen() throws IOException {
        if (closed) {
            throw new ClosedChannelException();
        }
    }

    private void checkInterface(int interfaceId, int requiredLinkType) {
        if (interfaceId < 0 || interfaceId >= interfaceCount) {
            throw new IllegalArgumentException("interface " + interfaceId + " was not added (" + interfaceCount
                    + " interfaces)");
        }
        if (requiredLinkType >= 0 && linkTypes[interfaceId] != requiredLinkType) {
            throw new IllegalArgumentException("interface " + interfaceId + " has link type " + linkTypes[interfaceId]
                    + ", this method writes link type " + requiredLinkType);
        }
    }

    private static void checkLength(int length) {
        if (length < 0 || length > Integer.MAX_VALUE - 64) {
            throw new IllegalArgumentException("packet length " + length + " is out of range");
        }
    }

    private static int padded(int length) {
        return length + 3 & ~3;
    }
}
