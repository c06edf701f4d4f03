package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * PortInfo (IBA 1.2.1 §14.2.5.6 table 146), 64 octets, every field as carried.
 *
 * <pre>
 * 0-7 M_Key  8-15 GidPrefix  16-17 LID  18-19 MasterSMLID  20-23 CapabilityMask  24-25 DiagCode
 * 26-27 M_KeyLeasePeriod  28 LocalPortNum  29 LinkWidthEnabled  30 LinkWidthSupported
 * 31 LinkWidthActive  32 LinkSpeedSupported (4) | PortState (4)
 * 33 PortPhysicalState (4) | LinkDownDefaultState (4)  34 M_KeyProtectBits (2) | res (3) | LMC (3)
 * 35 LinkSpeedActive (4) | LinkSpeedEnabled (4)  36 NeighborMTU (4) | MasterSMSL (4)
 * 37 VLCap (4) | InitType (4)  38 VLHighLimit  39 VLArbitrationHighCap  40 VLArbitrationLowCap
 * 41 InitTypeReply (4) | MTUCap (4)  42 VLStallCount (3) | HOQLife (5)
 * 43 OperationalVLs (4) | PartitionEnforcementInbound | Outbound | FilterRawInbound | Outbound
 * 44-45 M_KeyViolations  46-47 P_KeyViolations  48-49 Q_KeyViolations  50 GUIDCap
 * 51 ClientReregister (1) | MulticastPKeyTrapSuppressionEnabled (2) | SubnetTimeOut (5)
 * 52 res (3) | RespTimeValue (5)  53 LocalPhyErrors (4) | OverrunErrors (4)  54-55 MaxCreditHint
 * 56 res  57-59 LinkRoundTripLatency  60-61 CapabilityMask2
 * 62 LinkSpeedExtActive (4) | LinkSpeedExtSupported (4)  63 res (3) | LinkSpeedExtEnabled (5)
 * </pre>
 *
 * @param enforcement octet 43's low four bits: PartitionEnforcementInbound (8), Outbound (4),
 *        FilterRawInbound (2), FilterRawOutbound (1)
 */
public record PortInfo(long mKey, long gidPrefix, int lid, int masterSmLid, int capabilityMask, int diagCode,
        int mKeyLeasePeriod, int localPortNum, int linkWidthEnabled, int linkWidthSupported, int linkWidthActive,
        int linkSpeedSupported, int portState, int portPhysicalState, int linkDownDefaultState,
        int mKeyProtectBits, int lmc, int linkSpeedActive, int linkSpeedEnabled, int neighborMtu, int masterSmSl,
        int vlCap, int initType, int vlHighLimit, int vlArbitrationHighCap, int vlArbitrationLowCap,
        int initTypeReply, int mtuCap, int vlStallCount, int hoqLife, int operationalVls, int enforcement,
        int mKeyViolations, int pKeyViolations, int qKeyViolations, int guidCap, boolean clientReregister,
        int multicastPKeyTrapSuppression, int subnetTimeout, int respTimeValue, int localPhyErrors,
        int overrunErrors, int maxCreditHint, int linkRoundTripLatency, int capabilityMask2,
        int linkSpeedExtActive, int linkSpeedExtSupported, int linkSpeedExtEnabled) {
    public static final int LENGTH = 64;

    public PortInfo {
        Fields.bits("PortInfo LID", lid, 16);
        Fields.bits("PortInfo MasterSMLID", masterSmLid, 16);
        Fields.bits("PortInfo DiagCode", diagCode, 16);
        Fields.bits("PortInfo M_KeyLeasePeriod", mKeyLeasePeriod, 16);
        Fields.bits("PortInfo LocalPortNum", localPortNum, 8);
        Fields.bits("PortInfo LinkWidthEnabled", linkWidthEnabled, 8);
        Fields.bits("PortInfo LinkWidthSupported", linkWidthSupported, 8);
        Fields.bits("PortInfo LinkWidthActive", linkWidthActive, 8);
        Fields.bits("PortInfo LinkSpeedSupported", linkSpeedSupported, 4);
        Fields.bits("PortInfo PortState", portState, 4);
        Fields.bits("PortInfo PortPhysicalState", portPhysicalState, 4);
        Fields.bits("PortInfo LinkDownDefaultState", linkDownDefaultState, 4);
        Fields.bits("PortInfo M_KeyProtectBits", mKeyProtectBits, 2);
        Fields.bits("PortInfo LMC", lmc, 3);
        Fields.bits("PortInfo LinkSpeedActive", linkSpeedActive, 4);
        Fields.bits("PortInfo LinkSpeedEnabled", linkSpeedEnabled, 4);
        Fields.bits("PortInfo NeighborMTU", neighborMtu, 4);
        Fields.bits("PortInfo MasterSMSL", masterSmSl, 4);
        Fields.bits("PortInfo VLCap", vlCap, 4);
        Fields.bits("PortInfo InitType", initType, 4);
        Fields.bits("PortInfo VLHighLimit", vlHighLimit, 8);
        Fields.bits("PortInfo VLArbitrationHighCap", vlArbitrationHighCap, 8);
        Fields.bits("PortInfo VLArbitrationLowCap", vlArbitrationLowCap, 8);
        Fields.bits("PortInfo InitTypeReply", initTypeReply, 4);
        Fields.bits("PortInfo MTUCap", mtuCap, 4);
        Fields.bits("PortInfo VLStallCount", vlStallCount, 3);
        Fields.bits("PortInfo HOQLife", hoqLife, 5);
        Fields.bits("PortInfo OperationalVLs", operationalVls, 4);
        Fields.bits("PortInfo enforcement", enforcement, 4);
        Fields.bits("PortInfo M_KeyViolations", mKeyViolations, 16);
        Fields.bits("PortInfo P_KeyViolations", pKeyViolations, 16);
        Fields.bits("PortInfo Q_KeyViolations", qKeyViolations, 16);
        Fields.bits("PortInfo GUIDCap", guidCap, 8);
        Fields.bits("PortInfo MulticastPKeyTrapSuppressionEnabled", multicastPKeyTrapSuppression, 2);
        Fields.bits("PortInfo SubnetTimeOut", subnetTimeout, 5);
        Fields.bits("PortInfo RespTimeValue", respTimeValue, 5);
        Fields.bits("PortInfo LocalPhyErrors", localPhyErrors, 4);
        Fields.bits("PortInfo OverrunErrors", overrunErrors, 4);
        Fields.bits("PortInfo MaxCreditHint", maxCreditHint, 16);
        Fields.bits("PortInfo LinkRoundTripLatency", linkRoundTripLatency, 24);
        Fields.bits("PortInfo CapabilityMask2", capabilityMask2, 16);
        Fields.bits("PortInfo LinkSpeedExtActive", linkSpeedExtActive, 4);
        Fields.bits("PortInfo LinkSpeedExtSupported", linkSpeedExtSupported, 4);
        Fields.bits("PortInfo LinkSpeedExtEnabled", linkSpeedExtEnabled, 5);
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "PortInfo");
        Wire.put64(s, o, mKey);
        Wire.put64(s, o + 8, gidPrefix);
        Wire.put16(s, o + 16, lid);
        Wire.put16(s, o + 18, masterSmLid);
        Wire.put32(s, o + 20, capabilityMask);
        Wire.put16(s, o + 24, diagCode);
        Wire.put16(s, o + 26, mKeyLeasePeriod);
        Wire.put8(s, o + 28, localPortNum);
        Wire.put8(s, o + 29, linkWidthEnabled);
        Wire.put8(s, o + 30, linkWidthSupported);
        Wire.put8(s, o + 31, linkWidthActive);
        Wire.put8(s, o + 32, linkSpeedSupported << 4 | portState);
        Wire.put8(s, o + 33, portPhysicalState << 4 | linkDownDefaultState);
        Wire.put8(s, o + 34, mKeyProtectBits << 6 | lmc);
        Wire.put8(s, o + 35, linkSpeedActive << 4 | linkSpeedEnabled);
        Wire.put8(s, o + 36, neighborMtu << 4 | masterSmSl);
        Wire.put8(s, o + 37, vlCap << 4 | initType);
        Wire.put8(s, o + 38, vlHighLimit);
        Wire.put8(s, o + 39, vlArbitrationHighCap);
        Wire.put8(s, o + 40, vlArbitrationLowCap);
        Wire.put8(s, o + 41, initTypeReply << 4 | mtuCap);
        Wire.put8(s, o + 42, vlStallCount << 5 | hoqLife);
        Wire.put8(s, o + 43, operationalVls << 4 | enforcement);
        Wire.put16(s, o + 44, mKeyViolations);
        Wire.put16(s, o + 46, pKeyViolations);
        Wire.put16(s, o + 48, qKeyViolations);
        Wire.put8(s, o + 50, guidCap);
        Wire.put8(s, o + 51, (clientReregister ? 0x80 : 0) | multicastPKeyTrapSuppression << 5 | subnetTimeout);
        Wire.put8(s, o + 52, respTimeValue);
        Wire.put8(s, o + 53, localPhyErrors << 4 | overrunErrors);
        Wire.put16(s, o + 54, maxCreditHint);
        Wire.put8(s, o + 56, 0);
        Wire.put24(s, o + 57, linkRoundTripLatency);
        Wire.put16(s, o + 60, capabilityMask2);
        Wire.put8(s, o + 62, linkSpeedExtActive << 4 | linkSpeedExtSupported);
        Wire.put8(s, o + 63, linkSpeedExtEnabled);
    }

    public static PortInfo decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "PortInfo");
        int b32 = Wire.u8(s, o + 32);
        int b33 = Wire.u8(s, o + 33);
        int b34 = Wire.u8(s, o + 34);
        int b35 = Wire.u8(s, o + 35);
        int b36 = Wire.u8(s, o + 36);
        int b37 = Wire.u8(s, o + 37);
        int b41 = Wire.u8(s, o + 41);
        int b42 = Wire.u8(s, o + 42);
        int b43 = Wire.u8(s, o + 43);
        int b51 = Wire.u8(s, o + 51);
        int b53 = Wire.u8(s, o + 53);
        int b62 = Wire.u8(s, o + 62);
        return new PortInfo(Wire.u64(s, o), Wire.u64(s, o + 8), Wire.u16(s, o + 16), Wire.u16(s, o + 18),
                Wire.u32(s, o + 20), Wire.u16(s, o + 24), Wire.u16(s, o + 26), Wire.u8(s, o + 28), Wire.u8(s, o + 29),
                Wire.u8(s, o + 30), Wire.u8(s, o + 31), b32 >>> 4, b32 & 0xF, b33 >>> 4, b33 & 0xF, b34 >>> 6, b34 & 7,
                b35 >>> 4, b35 & 0xF, b36 >>> 4, b36 & 0xF, b37 >>> 4, b37 & 0xF, Wire.u8(s, o + 38),
                Wire.u8(s, o + 39), Wire.u8(s, o + 40), b41 >>> 4, b41 & 0xF, b42 >>> 5, b42 & 0x1F, b43 >>> 4,
                b43 & 0xF, Wire.u16(s, o + 44), Wire.u16(s, o + 46), Wire.u16(s, o + 48), Wire.u8(s, o + 50),
                (b51 & 0x80) != 0, (b51 >>> 5) & 3, b51 & 0x1F, Wire.u8(s, o + 52) & 0x1F, b53 >>> 4, b53 & 0xF,
                Wire.u16(s, o + 54), Wire.u24(s, o + 57), Wire.u16(s, o + 60), b62 >>> 4, b62 & 0xF,
                Wire.u8(s, o + 63) & 0x1F);
    }
}
