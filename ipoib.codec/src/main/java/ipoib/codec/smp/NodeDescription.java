package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.nio.charset.StandardCharsets;

/** NodeDescription (IBA 1.2.1 §14.2.5.2): 64 octets of UTF-8, NUL-padded. */
public final class NodeDescription {
    public static final int LENGTH = 64;

    private NodeDescription() {
    }

    /**
     * Writes the text, cut to 64 octets, NUL-padded.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public static void encode(String text, MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "NodeDescription");
        byte[] b = text.getBytes(StandardCharsets.UTF_8);
        for (int i = 0; i < LENGTH; i++) {
            Wire.put8(s, o + i, i < b.length ? b[i] & 0xFF : 0);
        }
    }

    /** The text up to the first NUL. */
    public static String decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "NodeDescription");
        byte[] b = new byte[LENGTH];
        int n = 0;
        while (n < LENGTH && Wire.u8(s, o + n) != 0) {
            b[n] = (byte) Wire.u8(s, o + n);
            n++;
        }
        return new String(b, 0, n, StandardCharsets.UTF_8);
    }
}
