package ipoib.codec.mad;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.sa.SaStatus;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.HexFormat;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

class MadHeadersTest {

    /**
     * The first 56 octets of a PathRecord GetResp built from OpenSM's ib_sa_mad_t layout and
     * decoded by tshark 4.0: BaseVersion 1, class 0x03, version 2, GetResp (0x81), status 0,
     * TID 0x1111, attribute 0x0035, no RMPP, SM_Key 0, AttributeOffset 0, ComponentMask 0x200c.
     */
    private static final String PATH_RECORD_GET_RESP_HEADERS = "01030281" + "0000" + "0000" + "0000000000001111"
            + "0035" + "0000" + "00000000" // common MAD header
            + "000000000000000000000000" // RMPP header
            + "0000000000000000" + "0000" + "0000" + "000000000000200c"; // SM_Key, AttributeOffset, ComponentMask

    @Test
    void decodesTheHeadersTsharkDecoded() throws DecodeException {
        byte[] bytes = HexFormat.of().parseHex(PATH_RECORD_GET_RESP_HEADERS);
        assertEquals(SaMad.DATA_OFFSET, bytes.length);
        SaMad mad = SaMad.decode(MemorySegment.ofArray(bytes), 0);
        assertEquals(new MadHeader(1, 0x03, 2, MadMethod.GET_RESP, 0, 0, 0x1111, MadAttribute.PATH_RECORD, 0),
                mad.header());
        assertEquals(RmppHeader.NONE, mad.rmpp());
        assertEquals(new SaHeader(0, 0, SaPathRecord.CM_DGID | SaPathRecord.CM_SGID | SaPathRecord.CM_PKEY), mad.sa());
        assertTrue(mad.header().isResponse());
    }

    @Test
    void encodesARequestAsTheLayoutSays() {
        byte[] out = new byte[SaMad.LENGTH];
        Arrays.fill(out, (byte) 0xEE);
        SaMad.request(MadMethod.GET, 0x1111, MadAttribute.PATH_RECORD, 0, 0x200c).response(0)
                .encode(MemorySegment.ofArray(out), 0);
        assertEquals(PATH_RECORD_GET_RESP_HEADERS, HexFormat.of().formatHex(out, 0, SaMad.DATA_OFFSET));
        for (int i = SaMad.DATA_OFFSET; i < SaMad.LENGTH; i++) {
            assertEquals(0, out[i], "data octet " + i + " is zeroed");
        }
    }

    @Provide
    Arbitrary<MadHeader> madHeaders() {
        return MadArbitraries.madHeaders();
    }

    @Property(tries = 300)
    void madHeaderRoundTrips(@ForAll("madHeaders") MadHeader header) throws DecodeException {
        byte[] out = new byte[MadHeader.LENGTH + 3];
        Arrays.fill(out, (byte) 0xFF);
        header.encode(MemorySegment.ofArray(out), 3);
        assertEquals(0, out[3 + 18]);
        assertEquals(0, out[3 + 19]);
        if (header.baseVersion() == 1) {
            assertEquals(header, MadHeader.decode(MemorySegment.ofArray(out), 3));
        } else {
            DecodeException e = assertThrows(DecodeException.class, () -> MadHeader.decode(MemorySegment.ofArray(out), 3));
            assertEquals("MAD BaseVersion", e.field());
            assertEquals(3, e.offset());
        }
    }

    @Provide
    Arbitrary<RmppHeader> rmppHeaders() {
        return MadArbitraries.rmppHeaders();
    }

    @Property(tries = 300)
    void rmppHeaderRoundTrips(@ForAll("rmppHeaders") RmppHeader rmpp) throws DecodeException {
        byte[] out = new byte[RmppHeader.LENGTH];
        rmpp.encode(MemorySegment.ofArray(out), 0);
        assertEquals(rmpp, RmppHeader.decode(MemorySegment.ofArray(out), 0));
        assertEquals(rmpp.responseTime(), (out[2] & 0xFF) >>> 3);
    }

    @Provide
    Arbitrary<SaHeader> saHeaders() {
        return MadArbitraries.saHeaders();
    }

    @Property(tries = 300)
    void saMadRoundTrips(@ForAll("madHeaders") MadHeader header, @ForAll("rmppHeaders") RmppHeader rmpp,
                         @ForAll("saHeaders") SaHeader sa) throws DecodeException {
        MadHeader sane = new MadHeader(1, SaMad.MANAGEMENT_CLASS, SaMad.CLASS_VERSION, header.method(),
                header.status(), header.classSpecific(), header.transactionId(), header.attributeId(),
                header.attributeModifier());
        SaMad mad = new SaMad(sane, rmpp, sa);
        byte[] out = new byte[SaMad.LENGTH];
        Arrays.fill(out, (byte) 0xFF);
        mad.encode(MemorySegment.ofArray(out), 0);
        assertEquals(0, out[SaMad.SA_HEADER_OFFSET + 10]);
        assertEquals(0, out[SaMad.SA_HEADER_OFFSET + 11]);
        assertEquals(mad, SaMad.decode(MemorySegment.ofArray(out), 0));
        // answers may come back shorter than 256 octets: the headers suffice
        assertEquals(mad, SaMad.decode(MemorySegment.ofArray(Arrays.copyOf(out, SaMad.DATA_OFFSET)), 0));
    }

    @Test
    void wrongClassOrVersionIsNamed() {
        byte[] bytes = HexFormat.of().parseHex(PATH_RECORD_GET_RESP_HEADERS);
        byte[] wrongClass = bytes.clone();
        wrongClass[1] = 0x01;
        DecodeException e = assertThrows(DecodeException.class, () -> SaMad.decode(MemorySegment.ofArray(wrongClass), 0));
        assertEquals("MAD MgmtClass", e.field());
        assertEquals(1, e.offset());
        byte[] wrongVersion = bytes.clone();
        wrongVersion[2] = 1;
        e = assertThrows(DecodeException.class, () -> SaMad.decode(MemorySegment.ofArray(wrongVersion), 0));
        assertEquals("MAD ClassVersion", e.field());
        assertEquals(2, e.offset());
        byte[] wrongBase = bytes.clone();
        wrongBase[0] = 2;
        e = assertThrows(DecodeException.class, () -> SaMad.decode(MemorySegment.ofArray(wrongBase), 0));
        assertEquals("MAD BaseVersion", e.field());
        for (int length = 0; length < SaMad.DATA_OFFSET; length++) {
            byte[] cut = Arrays.copyOf(bytes, length);
            e = assertThrows(DecodeException.class, () -> SaMad.decode(MemorySegment.ofArray(cut), 0));
            assertEquals("SA MAD", e.field());
        }
        assertEquals("MAD header", assertThrows(DecodeException.class,
                () -> MadHeader.decode(MemorySegment.ofArray(new byte[23]), 0)).field());
        assertEquals("RMPP header", assertThrows(DecodeException.class,
                () -> RmppHeader.decode(MemorySegment.ofArray(new byte[11]), 0)).field());
        assertEquals("SA header", assertThrows(DecodeException.class,
                () -> SaHeader.decode(MemorySegment.ofArray(new byte[19]), 0)).field());
    }

    @Test
    void responsesFollowIba() {
        assertEquals(MadMethod.GET_RESP, MadMethod.responseTo(MadMethod.GET));
        assertEquals(MadMethod.GET_RESP, MadMethod.responseTo(MadMethod.SET));
        assertEquals(MadMethod.GET_TABLE_RESP, MadMethod.responseTo(MadMethod.GET_TABLE));
        assertEquals(MadMethod.DELETE_RESP, MadMethod.responseTo(MadMethod.DELETE));
        assertEquals(MadMethod.REPORT_RESP, MadMethod.responseTo(MadMethod.REPORT));
        assertEquals(MadMethod.GET_MULTI_RESP, MadMethod.responseTo(MadMethod.GET_MULTI));
        assertEquals(MadMethod.TRAP_REPRESS, MadMethod.responseTo(MadMethod.TRAP));
        assertThrows(IllegalArgumentException.class, () -> MadMethod.responseTo(MadMethod.GET_RESP));
        assertFalse(MadMethod.isResponse(MadMethod.DELETE));
        assertEquals("GetTableResp", MadMethod.name(0x92));
        assertEquals("0x7f", MadMethod.name(0x7F));
        SaMad request = SaMad.request(MadMethod.DELETE, 42, MadAttribute.MC_MEMBER_RECORD, 0,
                SaMcMemberRecord.JOIN_COMPONENTS);
        SaMad answer = request.response(SaStatus.NO_RECORDS);
        assertEquals(MadMethod.DELETE_RESP, answer.header().method());
        assertEquals(SaStatus.NO_RECORDS, answer.header().status());
        assertEquals(42, answer.header().transactionId());
        assertEquals(7, SaHeader.attributeOffsetOf(SaMcMemberRecord.LENGTH));
        assertEquals(8, SaHeader.attributeOffsetOf(SaPathRecord.LENGTH));
        assertEquals(7, answer.withSa(new SaHeader(0, 7, 0)).sa().attributeOffset());
    }

    @Test
    void recordsRefuseFieldsBeyondTheirWidth() {
        assertThrows(IllegalArgumentException.class, () -> new MadHeader(256, 3, 2, 1, 0, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new MadHeader(1, 3, 2, 1, 0x10000, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new RmppHeader(1, 1, 32, 0, 0, 0, 0));
        assertThrows(IllegalArgumentException.class, () -> new SaHeader(0, 0x10000, 0));
        assertThrows(IllegalArgumentException.class, () -> new SaMad(null, RmppHeader.NONE, new SaHeader(0, 0, 0)));
        assertThrows(IllegalArgumentException.class, () -> Selector.fromCode(4));
        assertEquals(Selector.EXACTLY, Selector.fromCode(2));
    }
}
