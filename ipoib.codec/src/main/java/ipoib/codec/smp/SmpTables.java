package ipoib.codec.smp;

import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The table attributes of the SMA, one block at a time, read and written in place in the SMP's
 * data (IBA 1.2.1 §14.2.5): the attribute modifier selects the block, the data holds its entries.
 * An entry index outside its block is an {@link IllegalArgumentException}; an entry outside the
 * segment an {@link IndexOutOfBoundsException} naming the table and the entry.
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

    /** The offset of entry {@code index} of a block, checked: index in 0..count-1, the entry inside the segment. */
    private static long entry(MemorySegment s, long o, int index, int count, int width, String table) {
        if (index < 0 || index >= count) {
            throw new IllegalArgumentException(table + " entry " + index + ": allowed 0.." + (count - 1));
        }
        long at = o + (long) width * index;
        Wire.check(s, at, width, table + " entry " + index);
        return at;
    }

    public static int pkey(MemorySegment s, long o, int index) {
        return Wire.u16(s, entry(s, o, index, PKEYS_PER_BLOCK, 2, "P_KeyTable"));
    }

    public static void setPkey(MemorySegment s, long o, int index, int pkey) {
        Wire.put16(s, entry(s, o, index, PKEYS_PER_BLOCK, 2, "P_KeyTable"), pkey);
    }

    public static long guid(MemorySegment s, long o, int index) {
        return Wire.u64(s, entry(s, o, index, GUIDS_PER_BLOCK, 8, "GUIDInfo"));
    }

    public static void setGuid(MemorySegment s, long o, int index, long guid) {
        Wire.put64(s, entry(s, o, index, GUIDS_PER_BLOCK, 8, "GUIDInfo"), guid);
    }

    /** The output port of entry {@code index} (0..63) of an LFT block. */
    public static int lftPort(MemorySegment s, long o, int index) {
        return Wire.u8(s, entry(s, o, index, LIDS_PER_LFT_BLOCK, 1, "LinearForwardingTable"));
    }

    public static void setLftPort(MemorySegment s, long o, int index, int port) {
        Wire.put8(s, entry(s, o, index, LIDS_PER_LFT_BLOCK, 1, "LinearForwardingTable"), port);
    }

    /** The 16-bit port mask of entry {@code index} (0..31) of an MFT block. */
    public static int mftMask(MemorySegment s, long o, int index) {
        return Wire.u16(s, entry(s, o, index, MLIDS_PER_MFT_BLOCK, 2, "MulticastForwardingTable"));
    }

    public static void setMftMask(MemorySegment s, long o, int index, int mask) {
        Wire.put16(s, entry(s, o, index, MLIDS_PER_MFT_BLOCK, 2, "MulticastForwardingTable"), mask);
    }

    /** The MulticastForwardingTable modifier's block number: its low 9 bits (§14.2.5.12). */
    public static int mftBlock(int attributeModifier) {
        return attributeModifier & 0x1FF;
    }

    /** The MulticastForwardingTable modifier's port-mask position: its high 4 bits (ports 16*p .. 16*p+15). */
    public static int mftPosition(int attributeModifier) {
        return attributeModifier >>> 28;
    }

    private static long slOctet(MemorySegment s, long o, int sl) {
        if (sl < 0 || sl >= SLS) {
            throw new IllegalArgumentException("SLtoVLMappingTable SL " + sl + ": allowed 0.." + (SLS - 1));
        }
        return entry(s, o, sl / 2, SLS / 2, 1, "SLtoVLMappingTable");
    }

    /** The VL SL {@code sl} maps to: SL 0 in the high nibble of octet 0. */
    public static int slToVl(MemorySegment s, long o, int sl) {
        int b = Wire.u8(s, slOctet(s, o, sl));
        return sl % 2 == 0 ? b >>> 4 : b & 0xF;
    }

    public static void setSlToVl(MemorySegment s, long o, int sl, int vl) {
        long at = slOctet(s, o, sl);
        int b = Wire.u8(s, at);
        Wire.put8(s, at, sl % 2 == 0 ? (b & 0x0F) | vl << 4 : (b & 0xF0) | vl);
    }

    public static int vlArbitrationVl(MemorySegment s, long o, int entry) {
        return Wire.u8(s, entry(s, o, entry, VL_ARBITRATION_ENTRIES, 2, "VLArbitrationTable")) & 0xF;
    }

    public static int vlArbitrationWeight(MemorySegment s, long o, int entry) {
        return Wire.u8(s, entry(s, o, entry, VL_ARBITRATION_ENTRIES, 2, "VLArbitrationTable") + 1);
    }

    public static void setVlArbitration(MemorySegment s, long o, int entry, int vl, int weight) {
        long at = entry(s, o, entry, VL_ARBITRATION_ENTRIES, 2, "VLArbitrationTable");
        Wire.put8(s, at, vl & 0xF);
        Wire.put8(s, at + 1, weight);
    }
}
