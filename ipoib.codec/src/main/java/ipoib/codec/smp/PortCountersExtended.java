package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * PortCountersExtended (IBA 1.2.1 §16.1.4.11 table 247), 72 octets of PMA attribute data: 0 res,
 * 1 PortSelect, 2-3 CounterSelect, 4-7 res, then 64-bit PortXmitData, PortRcvData, PortXmitPkts,
 * PortRcvPkts, PortUnicastXmitPkts, PortUnicastRcvPkts, PortMulticastXmitPkts, PortMulticastRcvPkts
 * at 8, 16, ... 64. Data counters count 4-octet words.
 */
public record PortCountersExtended(int portSelect, int counterSelect, long xmitData, long rcvData, long xmitPackets,
        long rcvPackets, long unicastXmitPackets, long unicastRcvPackets, long multicastXmitPackets,
        long multicastRcvPackets) {
    public static final int LENGTH = 72;

    public PortCountersExtended {
        Fields.bits("PortCountersExtended PortSelect", portSelect, 8);
        Fields.bits("PortCountersExtended CounterSelect", counterSelect, 16);
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "PortCountersExtended");
        Wire.put8(s, o, 0);
        Wire.put8(s, o + 1, portSelect);
        Wire.put16(s, o + 2, counterSelect);
        Wire.put32(s, o + 4, 0);
        long[] v = {xmitData, rcvData, xmitPackets, rcvPackets, unicastXmitPackets, unicastRcvPackets,
            multicastXmitPackets, multicastRcvPackets};
        for (int i = 0; i < v.length; i++) {
            Wire.put64(s, o + 8 + 8L * i, v[i]);
        }
    }

    public static PortCountersExtended decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "PortCountersExtended");
        return new PortCountersExtended(Wire.u8(s, o + 1), Wire.u16(s, o + 2), Wire.u64(s, o + 8), Wire.u64(s, o + 16),
                Wire.u64(s, o + 24), Wire.u64(s, o + 32), Wire.u64(s, o + 40), Wire.u64(s, o + 48),
                Wire.u64(s, o + 56), Wire.u64(s, o + 64));
    }
}
