package ipoib.codec.cm;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.HexFormat;

/**
 * The private data of a CM message: octets the consumers of the connection exchange, of a fixed
 * room per message (92 in a REQ, 196 in a REP, ...). Fewer octets are padded with zeros on the
 * wire, so a decoded value always has the full room; compare what matters with {@link #startsWith}.
 */
public final class CmPrivateData {
    private final byte[] octets;

    private CmPrivateData(byte[] octets) {
        this.octets = octets;
    }

    /** A copy of {@code octets}. */
    public static CmPrivateData of(byte... octets) {
        return new CmPrivateData(octets.clone());
    }

    /** No private data. */
    public static CmPrivateData empty() {
        return new CmPrivateData(new byte[0]);
    }

    public int length() {
        return octets.length;
    }

    /** A copy of the octets. */
    public byte[] toBytes() {
        return octets.clone();
    }

    /** Whether these octets begin with {@code prefix}'s. */
    public boolean startsWith(CmPrivateData prefix) {
        return prefix.octets.length <= octets.length
                && Arrays.equals(octets, 0, prefix.octets.length, prefix.octets, 0, prefix.octets.length);
    }

    void encode(String message, MemorySegment s, long offset, int room) {
        if (octets.length > room) {
            throw new IllegalArgumentException("CM " + message + " private data of " + octets.length
                    + " octets does not fit its " + room + " octets");
        }
        MemorySegment.copy(octets, 0, s, ValueLayout.JAVA_BYTE, offset, octets.length);
        s.asSlice(offset + octets.length, room - octets.length).fill((byte) 0);
    }

    static CmPrivateData decode(MemorySegment s, long offset, int room) {
        byte[] b = new byte[room];
        MemorySegment.copy(s, ValueLayout.JAVA_BYTE, offset, b, 0, room);
        return new CmPrivateData(b);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CmPrivateData p && Arrays.equals(octets, p.octets);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(octets);
    }

    @Override
    public String toString() {
        return HexFormat.of().formatHex(octets);
    }
}
