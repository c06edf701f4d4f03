package ipoib.codec.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * Attribute records. The known vectors were packed with Python from OpenSM's ib_types.h structures
 * and decoded by tshark 4.0; the values asserted are tshark's readings.
 */
class SaRecordsTest {
    private static final Gid PORT_1 = Gid.parse("fe80::2:c903:0:1");
    private static final Gid PORT_2 = Gid.parse("fe80::2:c903:0:2");
    private static final Gid GROUP = Gid.parse("ff12:401b:ffff::1");

    /** ib_path_rec_t; tshark calls ServiceID "Reserved" (IBA 1.1). */
    private static final String PATH_RECORD = "1122334455667788fe800000000000000002c90300000002fe8000000000000000"
            + "02c9030000000100020001812345400a818001123784839205000000000000";
    private static final SaPathRecord PATH = new SaPathRecord(0x1122334455667788L, PORT_2, PORT_1, 2, 1, true,
            0x12345, 0x40, 0x0a, true, 1, 0x8001, 0x123, 7, Selector.EXACTLY, 4, Selector.EXACTLY, 3, Selector.EXACTLY,
            0x12, 5);

    /** ib_member_rec_t without its padding. */
    private static final String MEMBER_RECORD = "ff12401bffff00000000000000000001fe800000000000000002c903000000010000"
            + "0b1bc0018400ffff83820000000021800000";
    private static final SaMcMemberRecord MEMBER = new SaMcMemberRecord(GROUP, PORT_1, 0x0b1b, 0xc001,
            Selector.EXACTLY, 4, 0, 0xffff, Selector.EXACTLY, 3, Selector.EXACTLY, 2, 0, 0, 0, 2, 1, true);

    /** ib_inform_info_t, generic. */
    private static final String INFORM_INFO = "ff12401bffff00000000000000000001ffff000000000101ffff00420000011300ffffff";
    private static final InformInfo INFORM = new InformInfo(GROUP, 0xffff, 0, true, true, 0xffff, 66, 1, 0x13,
            0xffffff);

    /** ib_mad_notice_attr_t of trap 66; tshark: "New Multicast Group ... created", GIDADDR ff12:401b:ffff::1. */
    private static final String NOTICE = "83000004004200018005000000000000ff12401bffff00000000000000000001"
            + "0000000000000000000000000000000000000000000000000000000000000000fe800000000000000002c90300000002";

    @Test
    void pathRecordVector() throws DecodeException {
        byte[] bytes = HexFormat.of().parseHex(PATH_RECORD);
        assertEquals(PATH, SaPathRecord.decode(MemorySegment.ofArray(bytes), 0));
        assertEquals(PATH_RECORD, encode(PATH::encode, SaPathRecord.LENGTH));
    }

    @Test
    void memberRecordVector() throws DecodeException {
        byte[] bytes = HexFormat.of().parseHex(MEMBER_RECORD);
        assertEquals(MEMBER, SaMcMemberRecord.decode(MemorySegment.ofArray(bytes), 0));
        assertEquals(MEMBER_RECORD, encode(MEMBER::encode, SaMcMemberRecord.LENGTH));
    }

    @Test
    void informInfoVector() throws DecodeException {
        byte[] bytes = HexFormat.of().parseHex(INFORM_INFO);
        assertEquals(INFORM, InformInfo.decode(MemorySegment.ofArray(bytes), 0));
        assertEquals(INFORM_INFO, encode(INFORM::encode, InformInfo.LENGTH));
    }

    @Test
    void noticeVector() throws DecodeException {
        byte[] bytes = HexFormat.of().parseHex(NOTICE);
        Notice notice = Notice.decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(true, notice.generic());
        assertEquals(Notice.TYPE_SUBNET_MANAGEMENT, notice.type());
        assertEquals(Notice.PRODUCER_CLASS_MANAGER, notice.producerTypeOrVendorId());
        assertEquals(66, notice.trapNumberOrDeviceId());
        assertEquals(1, notice.issuerLid());
        assertEquals(true, notice.noticeToggle());
        assertEquals(5, notice.noticeCount());
        assertEquals(GROUP, notice.trapGid());
        assertEquals(PORT_2, notice.issuerGid());
        assertEquals(NOTICE, encode(notice::encode, Notice.LENGTH));
    }

    private interface Encoder {
        void encode(MemorySegment segment, long offset);
    }

    /** Encodes into a buffer of 0xFF (so reserved octets must be written) and returns the hex. */
    private static String encode(Encoder encoder, int length) {
        byte[] out = new byte[length];
        Arrays.fill(out, (byte) 0xFF);
        encoder.encode(MemorySegment.ofArray(out), 0);
        return HexFormat.of().formatHex(out);
    }

    @Provide
    Arbitrary<SaPathRecord> paths() {
        return MadArbitraries.pathRecords();
    }

    @Property(tries = 500)
    void pathRecordRoundTripsAndZeroesReservedBits(@ForAll("paths") SaPathRecord record) throws DecodeException {
        byte[] out = new byte[SaPathRecord.LENGTH + 8];
        Arrays.fill(out, (byte) 0xFF);
        record.encode(MemorySegment.ofArray(out), 8);
        assertEquals(0, out[8 + 44] & 0x70, "reserved bits after RawTraffic");
        assertArrayEquals(new byte[6], Arrays.copyOfRange(out, 8 + 58, 8 + 64), "reserved octets");
        assertEquals(record, SaPathRecord.decode(MemorySegment.ofArray(out), 8));
    }

    @Provide
    Arbitrary<SaMcMemberRecord> members() {
        return MadArbitraries.memberRecords();
    }

    @Property(tries = 500)
    void memberRecordRoundTripsAndZeroesReservedBits(@ForAll("members") SaMcMemberRecord record)
            throws DecodeException {
        byte[] out = new byte[SaMcMemberRecord.LENGTH];
        Arrays.fill(out, (byte) 0xFF);
        record.encode(MemorySegment.ofArray(out), 0);
        assertEquals(0, out[49] & 0x7F);
        assertEquals(0, out[50]);
        assertEquals(0, out[51]);
        assertEquals(record, SaMcMemberRecord.decode(MemorySegment.ofArray(out), 0));
    }

    @Provide
    Arbitrary<InformInfo> informs() {
        return MadArbitraries.informInfos();
    }

    @Property(tries = 500)
    void informInfoRoundTripsAndZeroesReservedBits(@ForAll("informs") InformInfo record) throws DecodeException {
        byte[] out = new byte[InformInfo.LENGTH];
        Arrays.fill(out, (byte) 0xFF);
        record.encode(MemorySegment.ofArray(out), 0);
        assertEquals(0, out[20]);
        assertEquals(0, out[21]);
        assertEquals(0, out[31] & 0xE0);
        assertEquals(0, out[32]);
        assertEquals(record, InformInfo.decode(MemorySegment.ofArray(out), 0));
    }

    @Provide
    Arbitrary<Notice> notices() {
        return MadArbitraries.notices();
    }

    @Property(tries = 500)
    void noticeRoundTrips(@ForAll("notices") Notice notice) throws DecodeException {
        byte[] out = new byte[Notice.LENGTH];
        notice.encode(MemorySegment.ofArray(out), 0);
        Notice back = Notice.decode(MemorySegment.ofArray(out), 0);
        assertEquals(notice, back);
        assertEquals(notice.hashCode(), back.hashCode());
        assertEquals(notice.toString(), back.toString());
    }

    @Test
    void noticeKeepsItsOwnCopyOfTheDetails() {
        byte[] details = new byte[Notice.DATA_DETAILS_LENGTH];
        Notice notice = new Notice(true, 3, 4, 66, 1, false, 0, details, PORT_1);
        details[0] = 1;
        notice.dataDetails()[1] = 1;
        assertArrayEquals(new byte[Notice.DATA_DETAILS_LENGTH], notice.dataDetails());
        assertThrows(IllegalArgumentException.class, () -> new Notice(true, 3, 4, 66, 1, false, 0, new byte[53], PORT_1));
        assertNotEquals(notice, new Notice(true, 3, 4, 67, 1, false, 0, details, PORT_1));
    }

    @Test
    void truncatedAttributesAreNamed() {
        MemorySegment short36 = MemorySegment.ofArray(new byte[35]);
        assertEquals("InformInfo", assertThrows(DecodeException.class, () -> InformInfo.decode(short36, 0)).field());
        assertEquals("MCMemberRecord",
                assertThrows(DecodeException.class, () -> SaMcMemberRecord.decode(short36, 0)).field());
        assertEquals("PathRecord", assertThrows(DecodeException.class, () -> SaPathRecord.decode(short36, 0)).field());
        assertEquals("Notice", assertThrows(DecodeException.class, () -> Notice.decode(short36, 0)).field());
        DecodeException e = assertThrows(DecodeException.class,
                () -> SaPathRecord.decode(MemorySegment.ofArray(new byte[100]), 40));
        assertEquals(40, e.offset());
    }

    @Test
    void constructorsRefuseFieldsBeyondTheirWidth() {
        assertThrows(IllegalArgumentException.class, () -> new SaPathRecord(0, PORT_1, PORT_2, 0, 0, false, 1 << 20,
                0, 0, false, 0, 0, 0, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new SaPathRecord(0, null, PORT_2, 0, 0, false, 0,
                0, 0, false, 0, 0, 0, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new SaMcMemberRecord(GROUP, PORT_1, 0, 0, Selector.EXACTLY,
                64, 0, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, 0, 0, 0, 0, 1, false));
        assertThrows(IllegalArgumentException.class, () -> new SaMcMemberRecord(GROUP, PORT_1, 0, 0, Selector.EXACTLY,
                4, 0, 0, Selector.EXACTLY, 0, Selector.EXACTLY, 0, 0, 0, 0, 0, 16, false));
        assertThrows(IllegalArgumentException.class, () -> new InformInfo(GROUP, 0, 0, true, true, 0, 0, 1 << 24, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new Notice(true, 128, 0, 0, 0, false, 0,
                new byte[Notice.DATA_DETAILS_LENGTH], PORT_1));
    }
}
