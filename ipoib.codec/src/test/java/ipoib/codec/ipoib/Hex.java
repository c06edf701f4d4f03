package ipoib.codec.ipoib;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.HexFormat;

/** Test helper: hand-written hex vectors to and from segments. */
public final class Hex {
    private Hex() {}

    /** The octets of {@code hex}; spaces, colons and line breaks are ignored. */
    public static byte[] bytes(String hex) {
        return HexFormat.of().parseHex(hex.replaceAll("[\\s:]", ""));
    }

    /** A heap segment holding the octets of {@code hex}. */
    public static MemorySegment segment(String hex) {
        return MemorySegment.ofArray(bytes(hex));
    }

    /** A heap segment of {@code prefix} filler octets (0xAA) followed by the octets of {@code hex}. */
    public static MemorySegment at(int prefix, String hex) {
        byte[] b = bytes(hex);
        byte[] out = new byte[prefix + b.length];
        java.util.Arrays.fill(out, 0, prefix, (byte) 0xAA);
        System.arraycopy(b, 0, out, prefix, b.length);
        return MemorySegment.ofArray(out);
    }

    /** {@code length} octets of {@code s} at {@code offset} as lower-case hex without separators. */
    public static String of(MemorySegment s, long offset, long length) {
        return HexFormat.of().formatHex(s.asSlice(offset, length).toArray(ValueLayout.JAVA_BYTE));
    }

    /** The whole segment as hex. */
    public static String of(MemorySegment s) {
        return of(s, 0, s.byteSize());
    }

    /** {@code hex} normalised the way {@link #of} prints. */
    public static String norm(String hex) {
        return hex.replaceAll("[\\s:]", "").toLowerCase(java.util.Locale.ROOT);
    }

    /** A segment of {@code size} octets, all 0xAA, to show what an encoder leaves alone. */
    public static MemorySegment filled(int size) {
        byte[] b = new byte[size];
        java.util.Arrays.fill(b, (byte) 0xAA);
        return MemorySegment.ofArray(b);
    }
}
