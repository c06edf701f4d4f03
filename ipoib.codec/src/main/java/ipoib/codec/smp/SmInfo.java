package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * SMInfo (IBA 1.2.1 §14.2.5.13), 21 octets: 0-7 GUID, 8-15 SM_Key, 16-19 ActCount,
 * 20 Priority (4) | SMState (4).
 *
 * @param smState 0 not active, 1 discovering, 2 standby, 3 master
 */
public record SmInfo(long guid, long smKey, int actCount, int priority, int smState) {
    public static final int LENGTH = 21;

    public SmInfo {
        Fields.bits("SMInfo Priority", priority, 4);
        Fields.bits("SMInfo SMState", smState, 4);
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "SMInfo");
        Wire.put64(s, o, guid);
        Wire.put64(s, o + 8, smKey);
        Wire.put32(s, o + 16, actCount);
        Wire.put8(s, o + 20, priority << 4 | smState);
    }

    public static SmInfo decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "SMInfo");
        int b = Wire.u8(s, o + 20);
        return new SmInfo(Wire.u64(s, o), Wire.u64(s, o + 8), Wire.u32(s, o + 16), b >>> 4, b & 0xF);
    }
}
