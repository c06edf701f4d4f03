package ipoib.codec.pcap;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/**
 * Reads the packets of a classic pcap capture held in memory, tcpdump's default format
 * (draft-ietf-opsawg-pcap): the 24-octet file header in either byte order, with microsecond
 * (magic 0xa1b2c3d4) or nanosecond (0xa1b23c4d) timestamps, then 16-octet record headers each
 * followed by the captured octets.
 *
 * <p>The same accessors as {@link PcapngReader} for one interface; {@link #isPcap(MemorySegment)}
 * tells the formats apart. Every length is checked against the file and the snap length; a
 * malformed file ends in {@link DecodeException} naming the field and its offset. Not
 * thread-safe.
 */
public final class PcapReader {
    /** Magic of microsecond captures, as written in the writer's byte order. */
    public static final int MAGIC_MICROSECONDS = 0xA1B2C3D4;
    /** Magic of nanosecond captures. */
    public static final int MAGIC_NANOSECONDS = 0xA1B23C4D;
    /** Length of the file header. */
    public static final int FILE_HEADER_LENGTH = 24;
    /** Length of a record header. */
    public static final int RECORD_HEADER_LENGTH = 16;
    /** The link type is the low 28 bits of the header's LinkType field (the rest: FCS length, flags). */
    private static final int LINK_TYPE_MASK = 0x0FFF_FFFF;
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment file;
    private final ValueLayout.OfInt order;
    private final boolean nanoseconds;
    private final int snapLength;
    private final int linkType;
    private long position = FILE_HEADER_LENGTH;
    private long timestampNanos;
    private long dataOffset;
    private int capturedLength;
    private int originalLength;

    /**
     * A reader of the classic pcap capture that fills {@code file}.
     *
     * @throws DecodeException when the file header is truncated ("pcap file header") or its magic
     *                         is none of the four ("pcap magic")
     */
    public PcapReader(MemorySegment file) throws DecodeException {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file;
        if (file.byteSize() < FILE_HEADER_LENGTH) {
            throw new DecodeException("pcap file header", 0, "truncated: " + file.byteSize()
                    + " octets, the header has " + FILE_HEADER_LENGTH);
        }
        int magic = file.get(INT_LE, 0);
        if (magic == MAGIC_MICROSECONDS || magic == MAGIC_NANOSECONDS) {
            order = INT_LE;
        } else {
            magic = file.get(INT_BE, 0);
            if (magic != MAGIC_MICROSECONDS && magic != MAGIC_NANOSECONDS) {
                throw new DecodeException("pcap magic", 0, String.format("0x%08x: allowed 0xa1b2c3d4 (microseconds) "
                        + "or 0xa1b23c4d (nanoseconds), in either byte order", file.get(INT_BE, 0)));
            }
            order = INT_BE;
        }
        nanoseconds = magic == MAGIC_NANOSECONDS;
        snapLength = file.get(order, 16);
        linkType = file.get(order, 20) & LINK_TYPE_MASK;
    }

    /** Whether a file starts with a classic pcap magic (either byte order, either resolution). */
    public static boolean isPcap(MemorySegment file) {
        if (file.byteSize() < 4) {
            return false;
        }
        int le = file.get(INT_LE, 0);
        return le == MAGIC_MICROSECONDS || le == MAGIC_NANOSECONDS || Integer.reverseBytes(le) == MAGIC_MICROSECONDS
                || Integer.reverseBytes(le) == MAGIC_NANOSECONDS;
    }

    /**
     * Moves to the next packet.
     *
     * @return false at the end of the file
     * @throws DecodeException "pcap record header" (truncated), "pcap captured length" (longer than
     *                         the file or the snap length)
     */
    public boolean next() throws DecodeException {
        if (position >= file.byteSize()) {
            return false;
        }
        long record = position;
        if (file.byteSize() - record < RECORD_HEADER_LENGTH) {
            throw new DecodeException("pcap record header", record, "truncated: " + (file.byteSize() - record)
                    + " octets left, a record header has " + RECORD_HEADER_LENGTH);
        }
        long seconds = Integer.toUnsignedLong(file.get(order, record));
        long fraction = Integer.toUnsignedLong(file.get(order, record + 4));
        long captured = Integer.toUnsignedLong(file.get(order, record + 8));
        long available = file.byteSize() - record - RECORD_HEADER_LENGTH;
        if (captured > available) {
            throw new DecodeException("pcap captured length", record + 8, captured + " octets, " + available
                    + " left in the file");
        }
        if (snapLength > 0 && Integer.compareUnsigned((int) captured, snapLength) > 0) {
            throw new DecodeException("pcap captured length", record + 8, captured + " octets, more than the snap length "
                    + Integer.toUnsignedString(snapLength));
        }
        timestampNanos = seconds * 1_000_000_000L + (nanoseconds ? fraction : fraction * 1_000L);
        capturedLength = (int) captured;
        originalLength = file.get(order, record + 12);
        dataOffset = record + RECORD_HEADER_LENGTH;
        position = dataOffset + captured;
        return true;
    }

    /** The capture's link type (LINKTYPE_*, e.g. {@link LinkType#IPOIB}). */
    public int linkType() {
        return linkType;
    }

    /** The snap length of the file header (0: none). */
    public int snapLength() {
        return snapLength;
    }

    /** Whether timestamps are in nanoseconds (else microseconds). */
    public boolean nanosecondTimestamps() {
        return nanoseconds;
    }

    /** Whether the file was written big-endian. */
    public boolean bigEndian() {
        return order == INT_BE;
    }

    /** The timestamp of the current packet in nanoseconds since 1970. */
    public long timestampNanos() {
        return timestampNanos;
    }

    /** Where the current packet's data starts in the segment. */
    public long dataOffset() {
        return dataOffset;
    }

    /** Octets of the current packet in the file. */
    public int capturedLength() {
        return capturedLength;
    }

    /** Octets the current packet had on the wire. */
    public int originalLength() {
        return originalLength;
    }

    /** A slice of the segment holding the current packet's captured octets. */
    public MemorySegment data() {
        return file.asSlice(dataOffset, capturedLength);
    }
}
