package ipoib.codec.smp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;

/**
 * Known answers: the attribute data Debian's ibsim 0.12 answered to {@code smpdump -D} (under
 * libumad2sim) for its net-examples/net.2sw2path4hca subnet before an SM ran, decoded field by field
 * as IBA 1.2.1 chapter 14 lays them out, and encoded back to the same octets.
 */
class SmpAttributesTest {

    /** smpdump -D 0 0x11: NodeInfo of Switch1 (ibsim GUID 0x200000, 8 ports). */
    static final String SWITCH_NODE_INFO = "0101 0208 0000 0000 0020 0000 0000 0000 0020 0000 0000 0000 0020 0000 0008 0000"
            + " 0000 00a1 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000";
    /** smpdump -D 0,1 0x11: NodeInfo of Hca1 through its port 1. */
    static final String HCA_NODE_INFO = "0101 0102 0000 0000 0010 0000 0000 0000 0010 0000 0000 0000 0010 0001 0040 0000"
            + " 0000 00a1 0100 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000";
    /** smpdump -D 0,1 0x15 1: PortInfo of Hca1 port 1, linked, Init, no LID yet. */
    static final String HCA_PORT_INFO = "0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0050 c048 0000 0ff9 0102 1f02"
            + " 7252 0011 4040 0008 0804 e040 0000 0000 0000 201f 0000 0000 0000 0000 0030 0000";
    /** smpdump -D 0 0x15 0: PortInfo of Switch1's port 0. */
    static final String SWITCH_PORT0_INFO = "0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 c048 0000 0ff9 0002 1f02"
            + " 7452 0011 1040 0008 0803 0040 0000 0000 0000 011f 0800 0000 0000 0000 0030 0000";
    /** smpdump -D 0 0x12: SwitchInfo of Switch1. */
    static final String SWITCH_INFO = "7800 0000 0400 0000 0000 0004 0000 0040 3000 0000 0000 0000 0000 0000 0000 0000"
            + " 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000 0000";

    static MemorySegment bytes(String hex) {
        return MemorySegment.ofArray(HexFormat.of().parseHex(hex.replace(" ", "")));
    }

    static String hex(MemorySegment s, int length) {
        return HexFormat.of().formatHex(s.asSlice(0, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE));
    }

    @Test
    void nodeInfoOfASwitchAndAnHca() throws DecodeException {
        NodeInfo sw = NodeInfo.decode(bytes(SWITCH_NODE_INFO), 0);
        assertEquals(new NodeInfo(1, 1, 2, 8, 0x200000L, 0x200000L, 0x200000L, 8, 0, 0xa1, 0, 0), sw);
        NodeInfo ca = NodeInfo.decode(bytes(HCA_NODE_INFO), 0);
        assertEquals(new NodeInfo(1, 1, 1, 2, 0x100000L, 0x100000L, 0x100001L, 64, 0, 0xa1, 1, 0), ca);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        ca.encode(out, 0);
        assertEquals(hex(bytes(HCA_NODE_INFO), 64), hex(out, 64));
    }

    @Test
    void portInfoOfAnHcaPortInInit() throws DecodeException {
        PortInfo p = PortInfo.decode(bytes(HCA_PORT_INFO), 0);
        assertEquals(0, p.lid());
        assertEquals(0x0050c048, p.capabilityMask());
        assertEquals(0x0ff9, p.mKeyLeasePeriod());
        assertEquals(1, p.localPortNum());
        assertEquals(2, p.linkWidthEnabled(), "4x");
        assertEquals(0x1f, p.linkWidthSupported());
        assertEquals(2, p.linkWidthActive());
        assertEquals(7, p.linkSpeedSupported(), "SDR, DDR, QDR");
        assertEquals(2, p.portState(), "Init");
        assertEquals(5, p.portPhysicalState(), "LinkUp");
        assertEquals(2, p.linkDownDefaultState(), "Polling");
        assertEquals(1, p.linkSpeedActive(), "SDR");
        assertEquals(1, p.linkSpeedEnabled());
        assertEquals(4, p.neighborMtu(), "2048");
        assertEquals(4, p.vlCap());
        assertEquals(8, p.vlArbitrationHighCap());
        assertEquals(8, p.vlArbitrationLowCap());
        assertEquals(4, p.mtuCap());
        assertEquals(7, p.vlStallCount());
        assertEquals(0, p.hoqLife());
        assertEquals(4, p.operationalVls());
        assertEquals(32, p.guidCap());
        assertFalse(p.clientReregister());
        assertEquals(31, p.subnetTimeout());
        assertEquals(0x0030, p.capabilityMask2());
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        p.encode(out, 0);
        assertEquals(hex(bytes(HCA_PORT_INFO), 64), hex(out, 64));
    }

    @Test
    void portInfoOfASwitchPort0() throws DecodeException {
        PortInfo p = PortInfo.decode(bytes(SWITCH_PORT0_INFO), 0);
        assertEquals(4, p.portState(), "Active");
        assertEquals(2, p.linkWidthActive(), "4x");
        assertEquals(1, p.neighborMtu());
        assertEquals(3, p.mtuCap());
        assertEquals(0, p.vlStallCount());
        assertEquals(1, p.guidCap());
        assertEquals(8, p.respTimeValue());
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        p.encode(out, 0);
        assertEquals(hex(bytes(SWITCH_PORT0_INFO), 64), hex(out, 64));
    }

    @Test
    void switchInfo() throws DecodeException {
        SwitchInfo s = SwitchInfo.decode(bytes(SWITCH_INFO), 0);
        assertEquals(new SwitchInfo(30720, 0, 1024, 0, 0, 0, 0, 0, true, 0, 0, 64, 0x30, 0), s);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        s.encode(out, 0);
        assertEquals(hex(bytes(SWITCH_INFO), 64), hex(out, 64));
    }

    @Test
    void nodeDescriptionGuidInfoPKeysAndSlToVl() throws DecodeException {
        // smpdump -D 0,1 0x10, 0x14, 0x16 and 0x17 of Hca1.
        assertEquals("Hca1", NodeDescription.decode(bytes("4863 6131" + " 0000".repeat(30)), 0));
        MemorySegment guids = bytes("0000 0000 0010 0001" + " 0000".repeat(28));
        assertEquals(0x100001L, SmpTables.guid(guids, 0, 0));
        assertEquals(0L, SmpTables.guid(guids, 0, 1));
        MemorySegment pkeys = bytes("ffff" + " 0000".repeat(31));
        assertEquals(0xffff, SmpTables.pkey(pkeys, 0, 0));
        MemorySegment sl2vl = bytes("0123 4567 89ab cde7");
        assertEquals(0, SmpTables.slToVl(sl2vl, 0, 0));
        assertEquals(1, SmpTables.slToVl(sl2vl, 0, 1));
        assertEquals(13, SmpTables.slToVl(sl2vl, 0, 13));
        assertEquals(7, SmpTables.slToVl(sl2vl, 0, 15));
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        NodeDescription.encode("Hca1", out, 0);
        assertEquals("48636131" + "00".repeat(60), hex(out, 64));
    }

    @Test
    void smInfoAndCountersFollowTheirIbaLayouts() throws DecodeException {
        SmInfo sm = new SmInfo(0x0002c90300000101L, 0, 0x12345678, 15, 3);
        MemorySegment out = MemorySegment.ofArray(new byte[64]);
        sm.encode(out, 0);
        assertEquals("0002c90300000101" + "0000000000000000" + "12345678" + "f3", hex(out, 21));
        assertEquals(sm, SmInfo.decode(out, 0));

        PortCounters pc = new PortCounters(1, 0xffff, 0, 0, 2, 3, 0, 4, 5, 0, 0, 0, 0, 0, 6, 0x11111111L, 0x22222222L,
                7, 8, 0);
        MemorySegment c = MemorySegment.ofArray(new byte[64]);
        pc.encode(c, 0);
        assertEquals("0001ffff" + "0000" + "00" + "02" + "0003" + "0000" + "0004" + "0005" + "00000000" + "0000" + "0006"
                + "11111111" + "22222222" + "00000007" + "00000008" + "00000000", hex(c, 44));
        assertEquals(pc, PortCounters.decode(c, 0));
        assertEquals(0xFFFF_FFFFL, PortCounters.saturate(0x1_0000_0000L, 32));

        PortCountersExtended x = new PortCountersExtended(1, 0xff, 1, 2, 3, 4, 5, 6, 7, 8);
        MemorySegment e = MemorySegment.ofArray(new byte[72]);
        x.encode(e, 0);
        assertEquals("000100ff00000000" + "0000000000000001" + "0000000000000002", hex(e, 24));
        assertEquals(x, PortCountersExtended.decode(e, 0));
    }

    @Test
    void aShortSegmentIsADecodeErrorAndABadFieldIsRefused() {
        assertThrows(DecodeException.class, () -> PortInfo.decode(MemorySegment.ofArray(new byte[63]), 0));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SmInfo(1, 0, 0, 16, 0));
        assertEquals("SMInfo Priority 16 does not fit 4 bits (allowed 0..15)", e.getMessage());
    }

    @Test
    void directedRouteHeaderFieldsInPlace() {
        // A DR Get(NodeInfo) as ibsim's clients send it: hop count 1, path [0, 1], permissive DR LIDs.
        byte[] mad = new byte[Smp.LENGTH];
        MemorySegment s = MemorySegment.ofArray(mad);
        mad[0] = 1;
        mad[1] = (byte) 0x81;
        mad[2] = 1;
        mad[3] = 1;
        mad[7] = 1;
        mad[17] = 0x11;
        Smp.setDrSlid(s, Smp.PERMISSIVE_LID);
        Smp.setDrDlid(s, Smp.PERMISSIVE_LID);
        Smp.setInitialPath(s, 1, 1);
        assertEquals(Smp.CLASS_DIRECTED_ROUTE, Smp.managementClass(s));
        assertEquals(1, Smp.hopCount(s));
        assertEquals(0, Smp.hopPointer(s));
        assertEquals(Smp.ATTR_NODE_INFO, Smp.attributeId(s));
        assertEquals(1, Smp.initialPath(s, 1));
        Smp.setReturnPath(s, 1, 3);
        Smp.toResponse(s, Smp.STATUS_INVALID_VALUE);
        assertEquals(0x81, mad[3] & 0xFF);
        assertArrayEquals(new byte[] {(byte) 0x80, 0x1c}, new byte[] {mad[4], mad[5]});
        assertEquals(Smp.STATUS_INVALID_VALUE, Smp.status(s));
        assertEquals(3, mad[192 + 1]);
        assertEquals(0xffff, (mad[32] & 0xff) << 8 | (mad[33] & 0xff));
    }
}
