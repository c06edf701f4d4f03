package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * PortCounters (IBA 1.2.1 §16.1.3.5 table 225), 44 octets of PMA attribute data.
 *
 * <pre>
 * 0 res  1 PortSelect  2-3 CounterSelect  4-5 SymbolErrorCounter  6 LinkErrorRecoveryCounter
 * 7 LinkDownedCounter  8-9 PortRcvErrors  10-11 PortRcvRemotePhysicalErrors
 * 12-13 PortRcvSwitchRelayErrors  14-15 PortXmitDiscards  16 PortXmitConstraintErrors
 * 17 PortRcvConstraintErrors  18 CounterSelect2  19 LocalLinkIntegrityErrors (4) |
 * ExcessiveBufferOverrunErrors (4)  20-21 res  22-23 VL15Dropped  24-27 PortXmitData
 * 28-31 PortRcvData  32-35 PortXmitPkts  36-39 PortRcvPkts  40-43 PortXmitWait
 * </pre>
 *
 * Data counters count 4-octet words; every counter stops at its maximum.
 */
public record PortCounters(int portSelect, int counterSelect, int symbolErrors, int linkErrorRecoveries,
        int linkDowned, int rcvErrors, int rcvRemotePhysicalErrors, int rcvSwitchRelayErrors, int xmitDiscards,
        int xmitConstraintErrors, int rcvConstraintErrors, int counterSelect2, int localLinkIntegrityErrors,
        int excessiveBufferOverrunErrors, int vl15Dropped, long xmitData, long rcvData, long xmitPackets,
        long rcvPackets, long xmitWait) {
    public static final int LENGTH = 44;
    /** PortSelect 0xFF: all ports of a switch, summed (ClassPortInfo.CapabilityMask AllPortSelect). */
    public static final int ALL_PORTS = 0xFF;

    public PortCounters {
        Fields.bits("PortCounters PortSelect", portSelect, 8);
        Fields.bits("PortCounters CounterSelect", counterSelect, 16);
        Fields.bits("PortCounters SymbolErrorCounter", symbolErrors, 16);
        Fields.bits("PortCounters LinkErrorRecoveryCounter", linkErrorRecoveries, 8);
        Fields.bits("PortCounters LinkDownedCounter", linkDowned, 8);
        Fields.bits("PortCounters PortRcvErrors", rcvErrors, 16);
        Fields.bits("PortCounters PortRcvRemotePhysicalErrors", rcvRemotePhysicalErrors, 16);
        Fields.bits("PortCounters PortRcvSwitchRelayErrors", rcvSwitchRelayErrors, 16);
        Fields.bits("PortCounters PortXmitDiscards", xmitDiscards, 16);
        Fields.bits("PortCounters PortXmitConstraintErrors", xmitConstraintErrors, 8);
        Fields.bits("PortCounters PortRcvConstraintErrors", rcvConstraintErrors, 8);
        Fields.bits("PortCounters CounterSelect2", counterSelect2, 8);
        Fields.bits("PortCounters LocalLinkIntegrityErrors", localLinkIntegrityErrors, 4);
        Fields.bits("PortCounters ExcessiveBufferOverrunErrors", excessiveBufferOverrunErrors, 4);
        Fields.bits("PortCounters VL15Dropped", vl15Dropped, 16);
        for (long v : new long[] {xmitData, rcvData, xmitPackets, rcvPackets, xmitWait}) {
            if (v < 0 || v > 0xFFFF_FFFFL) {
                throw new IllegalArgumentException("PortCounters 32-bit counter " + v + " does not fit 32 bits");
            }
        }
    }

    /** A counter saturated to {@code bits} bits (§16.1.3.5: counters stop at all ones). */
    public static long saturate(long value, int bits) {
        long max = (1L << bits) - 1;
        return value < 0 || value > max ? max : value;
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "PortCounters");
        Wire.put8(s, o, 0);
        Wire.put8(s, o + 1, portSelect);
        Wire.put16(s, o + 2, counterSelect);
        Wire.put16(s, o + 4, symbolErrors);
        Wire.put8(s, o + 6, linkErrorRecoveries);
        Wire.put8(s, o + 7, linkDowned);
        Wire.put16(s, o + 8, rcvErrors);
        Wire.put16(s, o + 10, rcvRemotePhysicalErrors);
        Wire.put16(s, o + 12, rcvSwitchRelayErrors);
        Wire.put16(s, o + 14, xmitDiscards);
        Wire.put8(s, o + 16, xmitConstraintErrors);
        Wire.put8(s, o + 17, rcvConstraintErrors);
        Wire.put8(s, o + 18, counterSelect2);
        Wire.put8(s, o + 19, localLinkIntegrityErrors << 4 | excessiveBufferOverrunErrors);
        Wire.put16(s, o + 20, 0);
        Wire.put16(s, o + 22, vl15Dropped);
        Wire.put32(s, o + 24, (int) xmitData);
        Wire.put32(s, o + 28, (int) rcvData);
        Wire.put32(s, o + 32, (int) xmitPackets);
        Wire.put32(s, o + 36, (int) rcvPackets);
        Wire.put32(s, o + 40, (int) xmitWait);
    }

    public static PortCounters decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "PortCounters");
        int b19 = Wire.u8(s, o + 19);
        return new PortCounters(Wire.u8(s, o + 1), Wire.u16(s, o + 2), Wire.u16(s, o + 4), Wire.u8(s, o + 6),
                Wire.u8(s, o + 7), Wire.u16(s, o + 8), Wire.u16(s, o + 10), Wire.u16(s, o + 12), Wire.u16(s, o + 14),
                Wire.u8(s, o + 16), Wire.u8(s, o + 17), Wire.u8(s, o + 18), b19 >>> 4, b19 & 0xF, Wire.u16(s, o + 22),
                Wire.u32(s, o + 24) & 0xFFFF_FFFFL, Wire.u32(s, o + 28) & 0xFFFF_FFFFL,
                Wire.u32(s, o + 32) & 0xFFFF_FFFFL, Wire.u32(s, o + 36) & 0xFFFF_FFFFL,
                Wire.u32(s, o + 40) & 0xFFFF_FFFFL);
    }
}
