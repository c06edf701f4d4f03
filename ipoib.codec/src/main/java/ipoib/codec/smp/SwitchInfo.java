package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * SwitchInfo (IBA 1.2.1 §14.2.5.4), 20 octets.
 *
 * <pre>
 * 0-1 LinearFDBCap  2-3 RandomFDBCap  4-5 MulticastFDBCap  6-7 LinearFDBTop  8 DefaultPort
 * 9 DefaultMulticastPrimaryPort  10 DefaultMulticastNotPrimaryPort
 * 11 LifeTimeValue (5) | PortStateChange (1) | OptimizedSLtoVLMappingProgramming (2)
 * 12-13 LIDsPerPort  14-15 PartitionEnforcementCap
 * 16 InboundEnforcementCap | OutboundEnforcementCap | FilterRawInboundCap | FilterRawOutboundCap |
 *    EnhancedPort0 | reserved (3)
 * 17 reserved  18-19 MulticastFDBTop
 * </pre>
 *
 * @param capabilities octet 16: the four enforcement capabilities and EnhancedPort0 (0x08)
 */
public record SwitchInfo(int linearFdbCap, int randomFdbCap, int multicastFdbCap, int linearFdbTop, int defaultPort,
        int defaultMulticastPrimaryPort, int defaultMulticastNotPrimaryPort, int lifeTimeValue,
        boolean portStateChange, int optimizedSlToVlMapping, int lidsPerPort, int partitionEnforcementCap,
        int capabilities, int multicastFdbTop) {
    public static final int LENGTH = 20;
    /** EnhancedPort0 in {@link #capabilities()}. */
    public static final int ENHANCED_PORT0 = 0x08;

    public SwitchInfo {
        Fields.bits("SwitchInfo LinearFDBCap", linearFdbCap, 16);
        Fields.bits("SwitchInfo RandomFDBCap", randomFdbCap, 16);
        Fields.bits("SwitchInfo MulticastFDBCap", multicastFdbCap, 16);
        Fields.bits("SwitchInfo LinearFDBTop", linearFdbTop, 16);
        Fields.bits("SwitchInfo DefaultPort", defaultPort, 8);
        Fields.bits("SwitchInfo DefaultMulticastPrimaryPort", defaultMulticastPrimaryPort, 8);
        Fields.bits("SwitchInfo DefaultMulticastNotPrimaryPort", defaultMulticastNotPrimaryPort, 8);
        Fields.bits("SwitchInfo LifeTimeValue", lifeTimeValue, 5);
        Fields.bits("SwitchInfo OptimizedSLtoVLMappingProgramming", optimizedSlToVlMapping, 2);
        Fields.bits("SwitchInfo LIDsPerPort", lidsPerPort, 16);
        Fields.bits("SwitchInfo PartitionEnforcementCap", partitionEnforcementCap, 16);
        Fields.bits("SwitchInfo capabilities", capabilities, 8);
        Fields.bits("SwitchInfo MulticastFDBTop", multicastFdbTop, 16);
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "SwitchInfo");
        Wire.put16(s, o, linearFdbCap);
        Wire.put16(s, o + 2, randomFdbCap);
        Wire.put16(s, o + 4, multicastFdbCap);
        Wire.put16(s, o + 6, linearFdbTop);
        Wire.put8(s, o + 8, defaultPort);
        Wire.put8(s, o + 9, defaultMulticastPrimaryPort);
        Wire.put8(s, o + 10, defaultMulticastNotPrimaryPort);
        Wire.put8(s, o + 11, lifeTimeValue << 3 | (portStateChange ? 4 : 0) | optimizedSlToVlMapping);
        Wire.put16(s, o + 12, lidsPerPort);
        Wire.put16(s, o + 14, partitionEnforcementCap);
        Wire.put8(s, o + 16, capabilities);
        Wire.put8(s, o + 17, 0);
        Wire.put16(s, o + 18, multicastFdbTop);
    }

    public static SwitchInfo decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "SwitchInfo");
        int b11 = Wire.u8(s, o + 11);
        return new SwitchInfo(Wire.u16(s, o), Wire.u16(s, o + 2), Wire.u16(s, o + 4), Wire.u16(s, o + 6),
                Wire.u8(s, o + 8), Wire.u8(s, o + 9), Wire.u8(s, o + 10), b11 >>> 3, (b11 & 4) != 0, b11 & 3,
                Wire.u16(s, o + 12), Wire.u16(s, o + 14), Wire.u8(s, o + 16), Wire.u16(s, o + 18));
    }
}
