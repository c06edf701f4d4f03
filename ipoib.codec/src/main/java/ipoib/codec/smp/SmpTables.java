package ipoib.codec.smp;

import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The table attributes of the SMA, one block at a time, read and written in place in the SMP's
 * data (IBA 1.2.1 §14.2.5): the attribute modifier selects the block, the data holds its entries.
 */
public final class SmpTables {
    /** P_Keys per P_KeyTable block (§14.2.5.7): 32 16-bit entries, the modifier's low 16 bits are the block. */
    public static final int PKEYS_PER_BLOCK = 32;
    /** GUIDs per GUIDInfo block (§14.2.5.5). */
    public static final int GUIDS_PER_BLOCK = 8;
    /** Ports per LinearForwardingTable block (§14.2.5.10): one octet per LID, 64 LIDs. */
    public static final int LIDS_PER_LFT_BLOCK = 64;
    /** MLIDs per MulticastForwardingTable block (§14.2.5.12): a 16-bit port mask each, 32 MLIDs. */
    public static final int MLIDS_PER_MFT_BLOCK = 32;
    /** SLs of an SLtoVLMappingTable (§14.2.5.8): a 4-bit VL each, 8 octets. */
    public static final int SLS = 16;
    /** Entries per VLArbitrationTable block (§14.2.5.9): VL (4 bits of octet 0) and weight (octet 1). */
    public static final int VL_ARBITRATION_ENTRIES = 32;

    private SmpTables() {
    }

    public static int pkey(MemorySegment s, long o, int index) {
        return Wire.u16(s, o + 2L * index);
    }

    public static void setPkey(MemorySegment s, long o, int index, int pkey) {
        Wire.put16(s, o + 2L * index, pkey);
    }

    public static long guid(MemorySegment s, long o, int index) {
        return Wire.u64(s, o + 8L * index);
    }

    public static void setGuid(MemorySegment s, long o, int index, long guid) {
        Wire.put64(s, o + 8L * index, guid);
    }

    /** The output port of entry {@code index} (0..63) of an LFT block. */
    public static int lftPort(MemorySegment s, long o, int index) {
        return Wire.u8(s, o + index);
    }

    public static void setLftPort(MemorySegment s, long o, int index, int port) {
        Wire.put8(s, o + index, port);
    }

    /** The 16-bit port mask of entry {@code index} (0..31) of an MFT block. */
    public static int mftMask(MemorySegment s, long o, int index) {
        return Wire.u16(s, o + 2L * index);
    }

    public static void setMftMask(MemorySegment s, long o, int index, int mask) {
        Wire.put16(s, o + 2L * index, mask);
    }

    /** The MulticastForwardingTable modifier's block number: its low 9 bits (§14.2.5.12). */
    public static int mftBlock(int attributeModifier) {
        return attributeModifier & 0x1FF;
    }

    /** The MulticastForwardingTable modifier's port-mask position: its high 4 bits (ports 16*p .. 16*p+15). */
    public static int mftPosition(int attributeModifier) {
        return attributeModifier >>> 28;
    }

    /** The VL SL {@code sl} maps to: SL 0 in the high nibble of octet 0. */
    public static int slToVl(MemorySegment s, long o, int sl) {
        int b = Wire.u8(s, o + sl / 2);
        return sl % 2 == 0 ? b >>> 4 : b & 0xF;
    }

    public static void setSlToVl(MemorySegment s, long o, int sl, int vl) {
        int b = Wire.u8(s, o + sl / 2);
        Wire.put8(s, o + sl / 2, sl % 2 == 0 ? (b & 0x0F) | vl << 4 : (b & 0xF0) | vl);
    }

    public static int vlArbitrationVl(MemorySegment s, long o, int entry) {
        return Wire.u8(s, o + 2L * entry) & 0xF;
    }

    public static int vlArbitrationWeight(MemorySegment s, long o, int entry) {
        return Wire.u8(s, o + 2L * entry + 1);
    }

    public static void setVlArbitration(MemorySegment s, long o, int entry, int vl, int weight) {
        Wire.put8(s, o + 2L * entry, vl & 0xF);
        Wire.put8(s, o + 2L * entry + 1, weight);
    }
}
