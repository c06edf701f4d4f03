package ipoib.verbs.fabric.ffi;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.UnionLayout;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/**
 * Builds {@link MemoryLayout}s the way a C compiler on x86-64/aarch64 Linux lays out a struct:
 * every member at its natural alignment, the struct padded to its largest alignment. Members are
 * named exactly as in the C headers, so that the layout test can print {@code offsetof} of every
 * named member path and compare.
 */
public final class CLayout {
    private CLayout() {}

    public static final ValueLayout.OfByte U8 = ValueLayout.JAVA_BYTE;
    public static final ValueLayout.OfShort U16 = ValueLayout.JAVA_SHORT;
    public static final ValueLayout.OfInt U32 = ValueLayout.JAVA_INT;
    public static final ValueLayout.OfLong U64 = ValueLayout.JAVA_LONG;
    public static final ValueLayout PTR = ValueLayout.ADDRESS;

    /** A named scalar member. */
    public static MemoryLayout m(String name, MemoryLayout type) {
        return type.withName(name);
    }

    /** A named opaque member (char arrays, pthread types): size and alignment as C has them. */
    public static MemoryLayout opaque(String name, long size, long alignment) {
        return MemoryLayout.sequenceLayout(size, ValueLayout.JAVA_BYTE).withByteAlignment(alignment).withName(name);
    }

    /** A struct with C padding between members and at the end. */
    public static StructLayout struct(String name, MemoryLayout... members) {
        List<MemoryLayout> out = new ArrayList<>();
        long offset = 0;
        long maxAlign = 1;
        for (MemoryLayout member : members) {
            long align = member.byteAlignment();
            maxAlign = Math.max(maxAlign, align);
            long pad = (align - offset % align) % align;
            if (pad > 0) {
                out.add(MemoryLayout.paddingLayout(pad));
                offset += pad;
            }
            out.add(member);
            offset += member.byteSize();
        }
        long tail = (maxAlign - offset % maxAlign) % maxAlign;
        if (tail > 0) {
            out.add(MemoryLayout.paddingLayout(tail));
        }
        StructLayout layout = MemoryLayout.structLayout(out.toArray(MemoryLayout[]::new));
        return name == null ? layout : layout.withName(name);
    }

    /** A union padded to its largest alignment. */
    public static MemoryLayout union(String name, MemoryLayout... members) {
        long size = 0;
        long maxAlign = 1;
        for (MemoryLayout member : members) {
            size = Math.max(size, member.byteSize());
            maxAlign = Math.max(maxAlign, member.byteAlignment());
        }
        long tail = (maxAlign - size % maxAlign) % maxAlign;
        UnionLayout union = MemoryLayout.unionLayout(members);
        if (tail == 0) {
            return union.withName(name);
        }
        // A union of the members and a padding struct of the full size keeps the C size.
        return MemoryLayout.unionLayout(concat(members, MemoryLayout.paddingLayout(size + tail))).withName(name);
    }

    private static MemoryLayout[] concat(MemoryLayout[] a, MemoryLayout b) {
        MemoryLayout[] r = new MemoryLayout[a.length + 1];
        System.arraycopy(a, 0, r, 0, a.length);
        r[a.length] = b;
        return r;
    }
}
