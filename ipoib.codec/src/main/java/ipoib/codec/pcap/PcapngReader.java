package ipoib.codec.pcap;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * Reads the packets of a pcapng capture held in memory (IETF draft-ietf-opsawg-pcapng): Section
 * Header Blocks of either byte order, Interface Description Blocks with their link type, snap
 * length and {@code if_tsresol}, and Enhanced Packet Blocks; other blocks are skipped. Meant for
 * tests and tools that check what {@link PcapngWriter} and others wrote.
 *
 * <p>{@link #next()} moves to the next packet; its interface, link type, timestamp and the place
 * of its data in the segment are then available. Every block length, option and packet length is
 * checked against the segment; a malformed file ends in {@link DecodeException} naming the
 * field and its offset. Not thread-safe.
 */
public final class PcapngReader {
    private static final int SECTION_HEADER_BLOCK = 0x0A0D0D0A;
    private static final int INTERFACE_DESCRIPTION_BLOCK = 0x00000001;
    private static final int ENHANCED_PACKET_BLOCK = 0x00000006;
    private static final int BYTE_ORDER_MAGIC = 0x1A2B3C4D;
    private static final int OPT_END = 0;
    private static final int OPT_IF_TSRESOL = 9;
    private static final long NANOS_PER_SECOND = 1_000_000_000L;
    private static final ValueLayout.OfInt INT_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfInt INT_BE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfShort SHORT_LE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);
    private static final ValueLayout.OfShort SHORT_BE =
            ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private final MemorySegment file;
    private long position;
    private boolean inSection;
    private boolean bigEndian;
    private int[] linkTypes = new int[4];
    private int[] snapLengths = new int[4];
    private int[] tsresol = new int[4];
    private int interfaceCount;

    private int interfaceId;
    private long timestampUnits;
    private long dataOffset;
    private int capturedLength;
    private int originalLength;

    /** A reader of the capture that fills {@code file}. */
    public PcapngReader(MemorySegment file) {
        if (file == null) {
            throw new IllegalArgumentException("file must not be null");
        }
        this.file = file;
    }

    /**
     * Moves to the next packet.
     *
     * @return false at the end of the file
     * @throws DecodeException when a block is malformed: "pcapng block" (truncated),
     *         "pcapng block total length", "pcapng byte-order magic", "pcapng first block" (not a
     *         Section Header Block), "pcapng interface ID", "pcapng captured length", "pcapng option"
     */
    public boolean next() throws DecodeException {
        while (position < file.byteSize()) {
            long block = position;
            if (file.byteSize() - block < 12) {
                throw new DecodeException("pcapng block", block, "truncated: " + (file.byteSize() - block)
                        + " octets left, a block has at least 12");
            }
            int type = file.get(INT_LE, block);
            if (type == SECTION_HEADER_BLOCK) {
                readSectionHeader(block);
                continue;
            }
            if (!inSection) {
                throw new DecodeException("pcapng first block", block, String.format(
                        "block type 0x%08x, a capture starts with a Section Header Block", type));
            }
            type = u32(block);
            long total = blockLength(block);
            position = block + total;
            if (type == INTERFACE_DESCRIPTION_BLOCK) {
                readInterface(block, total);
            } else if (type == ENHANCED_PACKET_BLOCK) {
                readPacket(block, total);
                return true;
            }
        }
        return false;
    }

    /** The interface of the current packet. */
    public int interfaceId() {
        return interfaceId;
    }

    /** The link type of the current packet's interface. */
    public int linkType() {
        return linkTypes[interfaceId];
    }

    /** Number of interfaces declared so far in the current section. */
    public int interfaceCount() {
        return interfaceCount;
    }

    /** The link type of an interface declared so far. */
    public int linkType(int interfaceId) {
        if (interfaceId < 0 || interfaceId >= interfaceCount) {
            throw new IllegalArgumentException("interface " + interfaceId + " is not declared");
        }
        return linkTypes[interfaceId];
    }

    /** The snap length of an interface declared so far (0: no limit). */
    public int snapLength(int interfaceId) {
        linkType(interfaceId);
        return snapLengths[interfaceId];
    }

    /** The timestamp of the current packet in its interface's units. */
    public long timestampUnits() {
        return timestampUnits;
    }

    /** The timestamp of the current packet in nanoseconds since 1970 (rounded down). */
    public long timestampNanos() {
        int resolution = tsresol[interfaceId];
        int exponent = resolution & 0x7F;
        if ((resolution & 0x80) == 0) {
            if (exponent <= 9) {
                return timestampUnits * pow10(9 - exponent);
            }
            return exponent - 9 > 18 ? 0 : Long.divideUnsigned(timestampUnits, pow10(exponent - 9));
        }
        long low = timestampUnits * NANOS_PER_SECOND; // 128-bit product, shifted right by the exponent
        long high = Math.unsignedMultiplyHigh(timestampUnits, NANOS_PER_SECOND);
        if (exponent == 0) {
            return low;
        }
        return exponent >= 64 ? high >>> (exponent - 64) : high << (64 - exponent) | low >>> exponent;
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

    private void readSectionHeader(long block) throws DecodeException {
        if (file.byteSize() - block < 28) {
            throw new DecodeException("pcapng block", block, "truncated Section Header Block");
        }
        int magic = file.get(INT_LE, block + 8);
        if (magic == BYTE_ORDER_MAGIC) {
            bigEndian = false;
        } else if (magic == Integer.reverseBytes(BYTE_ORDER_MAGIC)) {
            bigEndian = true;
        } else {
            throw new DecodeException("pcapng byte-order magic", block + 8, String.format(
                    "0x%08x is neither 0x1A2B3C4D nor its byte swap", magic));
        }
        long total = blockLength(block);
        if (total < 28) {
            throw new DecodeException("pcapng block total length", block + 4, "a Section Header Block has at least 28 octets");
        }
        inSection = true;
        interfaceCount = 0; // interface IDs are per section
        position = block + total;
    }

    private void readInterface(long block, long total) throws DecodeException {
        if (total < 20) {
            throw new DecodeException("pcapng block total length", block + 4,
                    "an Interface Description Block has at least 20 octets, this one " + total);
        }
        int linkType = u16(block + 8);
        int snap = u32(block + 12);
        int resolution = 6;
        long option = block + 16;
        long end = block + total - 4;
        while (option + 4 <= end) {
            int code = u16(option);
            int length = u16(option + 2);
            if (code == OPT_END) {
                break;
            }
            long valueEnd = option + 4 + (length + 3 & ~3);
            if (valueEnd > end) {
                throw new DecodeException("pcapng option", option, "option " + code + " of " + length
                        + " octets runs past its block");
            }
            if (code == OPT_IF_TSRESOL) {
                if (length != 1) {
                    throw new DecodeException("pcapng option", option, "if_tsresol has " + length + " octets, needs 1");
                }
                resolution = file.get(ValueLayout.JAVA_BYTE, option + 4) & 0xFF;
            }
            option = valueEnd;
        }
        if (interfaceCount == linkTypes.length) {
            linkTypes = Arrays.copyOf(linkTypes, interfaceCount * 2);
            snapLengths = Arrays.copyOf(snapLengths, interfaceCount * 2);
            tsresol = Arrays.copyOf(tsresol, interfaceCount * 2);
        }
        linkTypes[interfaceCount] = linkType;
        snapLengths[interfaceCount] = snap;
        tsresol[interfaceCount] = resolution;
        interfaceCount++;
    }

    private void readPacket(long block, long total) throws DecodeException {
        if (total < 32) {
            throw new DecodeException("pcapng block total length", block + 4,
                    "an Enhanced Packet Block has at least 32 octets, this one " + total);
        }
        int id = u32(block + 8);
        if (id < 0 || id >= interfaceCount) {
            throw new DecodeException("pcapng interface ID", block + 8, "interface " + Integer.toUnsignedString(id)
                    + " is not declared (" + interfaceCount + " interfaces)");
        }
        long captured = Integer.toUnsignedLong(u32(block + 20));
        if (captured > total - 32) {
            throw new DecodeException("pcapng captured length", block + 20, captured + " octets do not fit a block of "
                    + total);
        }
        interfaceId = id;
        timestampUnits = (long) u32(block + 12) << 32 | Integer.toUnsignedLong(u32(block + 16));
        capturedLength = (int) captured;
        originalLength = u32(block + 24);
        dataOffset = block + 28;
    }

    /** The block's total length, checked: a multiple of 4, inside the file, repeated at its end. */
    private long blockLength(long block) throws DecodeException {
        long total = Integer.toUnsignedLong(u32(block + 4));
        if (total < 12 || total % 4 != 0) {
            throw new DecodeException("pcapng block total length", block + 4, total
                    + " octets: a block has at least 12, in whole 4-octet words");
        }
        if (total > file.byteSize() - block) {
            throw new DecodeException("pcapng block", block, "truncated: block of " + total + " octets, "
                    + (file.byteSize() - block) + " left");
        }
        long trailer = Integer.toUnsignedLong(u32(block + total - 4));
        if (trailer != total) {
            throw new DecodeException("pcapng block total length", block + total - 4, "trailing copy " + trailer
                    + " differs from " + total);
        }
        return total;
    }

    private int u32(long offset) {
        return file.get(bigEndian ? INT_BE : INT_LE, offset);
    }

    private int u16(long offset) {
        return file.get(bigEndian ? SHORT_BE : SHORT_LE, offset) & 0xFFFF;
    }

    private static long pow10(int exponent) {
        long p = 1;
        for (int i = 0; i < exponent; i++) {
            p *= 10;
        }
        return p;
    }
}
