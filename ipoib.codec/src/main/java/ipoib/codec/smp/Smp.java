package ipoib.codec.smp;

import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The subnet management packet (IBA 1.2.1 §14.2.1), read and written in place in a 256-octet MAD.
 *
 * <pre>
 * LID-routed (class 0x01, §14.2.1.1)         directed route (class 0x81, §14.2.1.2)
 * 0-23  common MAD header                    0-3 as the common header
 *                                            4-5 D (1) | Status (15)   6 HopPointer   7 HopCount
 *                                            8-23 as the common header (TID, AttributeID, modifier)
 * 24-31 M_Key                                24-31 M_Key
 *                                            32-33 DrSLID   34-35 DrDLID
 * 64-127 SMP data (64 octets)                64-127 SMP data
 *                                            128-191 InitialPath   192-255 ReturnPath
 * </pre>
 *
 * Each accessor checks that its field lies in the segment and throws
 * {@link IndexOutOfBoundsException} naming the field when it does not; a path index outside 0..63
 * is an {@link IllegalArgumentException}.
 */
public final class Smp {
    /** An SMP is always 256 octets. */
    public static final int LENGTH = 256;
    /** Offset of the 64 octets of attribute data (also where PMA attributes start, §16.1.1). */
    public static final int DATA = 64;
    public static final int DATA_LENGTH = 64;
    /** Ports a directed route can hold (InitialPath and ReturnPath have 64 entries, entry 0 unused). */
    public static final int MAX_HOPS = 63;

    /** MgmtClass of LID-routed SMPs. */
    public static final int CLASS_LID_ROUTED = 0x01;
    /** MgmtClass of directed-route SMPs. */
    public static final int CLASS_DIRECTED_ROUTE = 0x81;
    /** MgmtClass of the performance management agent (§16.1). */
    public static final int CLASS_PERFORMANCE = 0x04;
    /** ClassVersion of SMPs and of the PMA. */
    public static final int CLASS_VERSION = 1;

    public static final int METHOD_GET = 0x01;
    public static final int METHOD_SET = 0x02;
    public static final int METHOD_GET_RESPONSE = 0x81;
    public static final int METHOD_TRAP = 0x05;
    public static final int METHOD_TRAP_REPRESS = 0x07;

    /** The permissive LID (§4.1.3): "whoever receives this", used by directed route ends. */
    public static final int PERMISSIVE_LID = 0xFFFF;

    /** MAD status (§13.4.7): the method is not supported for this attribute. */
    public static final int STATUS_UNSUPPORTED_METHOD_ATTRIBUTE = 0x000C;
    /** MAD status: the class version or method is not supported. */
    public static final int STATUS_UNSUPPORTED_METHOD = 0x0008;
    /** MAD status: an attribute or modifier value is invalid. */
    public static final int STATUS_INVALID_VALUE = 0x001C;
    /** The D bit in the directed-route status field (§14.2.1.2): set on the way back. */
    public static final int DIRECTION = 0x8000;

    // Attribute IDs (§14.2.5 table 145).
    public static final int ATTR_NOTICE = 0x0002;
    public static final int ATTR_NODE_DESCRIPTION = 0x0010;
    public static final int ATTR_NODE_INFO = 0x0011;
    public static final int ATTR_SWITCH_INFO = 0x0012;
    public static final int ATTR_GUID_INFO = 0x0014;
    public static final int ATTR_PORT_INFO = 0x0015;
    public static final int ATTR_PKEY_TABLE = 0x0016;
    public static final int ATTR_SL_TO_VL_MAPPING_TABLE = 0x0017;
    public static final int ATTR_VL_ARBITRATION_TABLE = 0x0018;
    public static final int ATTR_LINEAR_FORWARDING_TABLE = 0x0019;
    public static final int ATTR_MULTICAST_FORWARDING_TABLE = 0x001B;
    public static final int ATTR_SM_INFO = 0x0020;
    // PMA attribute IDs (§16.1.2 table 221 and §16.1.4).
    public static final int ATTR_CLASS_PORT_INFO = 0x0001;
    public static final int ATTR_PORT_COUNTERS = 0x0012;
    public static final int ATTR_PORT_COUNTERS_EXTENDED = 0x001D;

    private Smp() {
    }

    /** The field must lie in the segment: a clear {@link IndexOutOfBoundsException} otherwise. */
    private static long at(MemorySegment s, long offset, int length, String field) {
        Wire.check(s, offset, length, "SMP " + field);
        return offset;
    }

    /** A path entry: 0..63 (§14.2.1.2: InitialPath and ReturnPath have 64 octets). */
    private static long pathEntry(MemorySegment s, long base, int i, String path) {
        if (i < 0 || i > MAX_HOPS) {
            throw new IllegalArgumentException("SMP " + path + " entry " + i + ": allowed 0.." + MAX_HOPS);
        }
        return at(s, base + i, 1, path);
    }

    public static int baseVersion(MemorySegment s) {
        return Wire.u8(s, at(s, 0, 1, "BaseVersion"));
    }

    public static int managementClass(MemorySegment s) {
        return Wire.u8(s, at(s, 1, 1, "MgmtClass"));
    }

    public static int classVersion(MemorySegment s) {
        return Wire.u8(s, at(s, 2, 1, "ClassVersion"));
    }

    /** The method with its R bit (0x80). */
    public static int method(MemorySegment s) {
        return Wire.u8(s, at(s, 3, 1, "Method"));
    }

    public static void setMethod(MemorySegment s, int method) {
        Wire.put8(s, at(s, 3, 1, "Method"), method);
    }

    public static boolean isResponse(MemorySegment s) {
        return (method(s) & 0x80) != 0;
    }

    public static boolean isDirectedRoute(MemorySegment s) {
        return managementClass(s) == CLASS_DIRECTED_ROUTE;
    }

    /** The status: 16 bits of a LID-routed MAD; the low 15 bits of a directed-route SMP. */
    public static int status(MemorySegment s) {
        int v = Wire.u16(s, at(s, 4, 2, "Status"));
        return isDirectedRoute(s) ? v & 0x7FFF : v;
    }

    /** Sets the status, keeping a directed-route SMP's D bit. */
    public static void setStatus(MemorySegment s, int status) {
        at(s, 4, 2, "Status");
        if (isDirectedRoute(s)) {
            Wire.put16(s, 4, (Wire.u16(s, 4) & DIRECTION) | (status & 0x7FFF));
        } else {
            Wire.put16(s, 4, status);
        }
    }

    /** Directed route: the D bit, set when the SMP travels back along the return path. */
    public static boolean direction(MemorySegment s) {
        return (Wire.u16(s, at(s, 4, 2, "D bit")) & DIRECTION) != 0;
    }

    public static void setDirection(MemorySegment s, boolean returning) {
        int v = Wire.u16(s, at(s, 4, 2, "D bit"));
        Wire.put16(s, 4, returning ? v | DIRECTION : v & ~DIRECTION);
    }

    public static int hopPointer(MemorySegment s) {
        return Wire.u8(s, at(s, 6, 1, "HopPointer"));
    }

    public static void setHopPointer(MemorySegment s, int pointer) {
        Wire.put8(s, at(s, 6, 1, "HopPointer"), pointer);
    }

    public static int hopCount(MemorySegment s) {
        return Wire.u8(s, at(s, 7, 1, "HopCount"));
    }

    public static long transactionId(MemorySegment s) {
        return Wire.u64(s, at(s, 8, 8, "TransactionID"));
    }

    public static void setTransactionId(MemorySegment s, long tid) {
        Wire.put64(s, at(s, 8, 8, "TransactionID"), tid);
    }

    public static int attributeId(MemorySegment s) {
        return Wire.u16(s, at(s, 16, 2, "AttributeID"));
    }

    public static int attributeModifier(MemorySegment s) {
        return Wire.u32(s, at(s, 20, 4, "AttributeModifier"));
    }

    public static long mKey(MemorySegment s) {
        return Wire.u64(s, at(s, 24, 8, "M_Key"));
    }

    public static int drSlid(MemorySegment s) {
        return Wire.u16(s, at(s, 32, 2, "DrSLID"));
    }

    public static void setDrSlid(MemorySegment s, int lid) {
        Wire.put16(s, at(s, 32, 2, "DrSLID"), lid);
    }

    public static int drDlid(MemorySegment s) {
        return Wire.u16(s, at(s, 34, 2, "DrDLID"));
    }

    public static void setDrDlid(MemorySegment s, int lid) {
        Wire.put16(s, at(s, 34, 2, "DrDLID"), lid);
    }

    /** InitialPath[i]: the port the SMP leaves through at hop i (entry 0 is unused). */
    public static int initialPath(MemorySegment s, int i) {
        return Wire.u8(s, pathEntry(s, 128, i, "InitialPath"));
    }

    public static void setInitialPath(MemorySegment s, int i, int port) {
        Wire.put8(s, pathEntry(s, 128, i, "InitialPath"), port);
    }

    /** ReturnPath[i]: the port the SMP arrived through at hop i, filled in on the way out. */
    public static int returnPath(MemorySegment s, int i) {
        return Wire.u8(s, pathEntry(s, 192, i, "ReturnPath"));
    }

    public static void setReturnPath(MemorySegment s, int i, int port) {
        Wire.put8(s, pathEntry(s, 192, i, "ReturnPath"), port);
    }

    /**
     * Makes a request its GetResp in place (§13.4.5, §14.2.2.1): method GetResp, the status, and for
     * a directed-route SMP the D bit set (the hop pointer is left where the responder found it).
     */
    public static void toResponse(MemorySegment s, int status) {
        at(s, 0, 6, "header");
        setMethod(s, METHOD_GET_RESPONSE);
        if (isDirectedRoute(s)) {
            setDirection(s, true);
        }
        setStatus(s, status);
    }
}
