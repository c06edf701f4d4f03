package ipoib.codec.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class CmCodecTest {

    private static byte[] encode(CmMad mad) {
        byte[] out = new byte[CmMad.LENGTH];
        java.util.Arrays.fill(out, (byte) 0x5a); // encode must overwrite every octet, reserved ones with zero
        mad.encode(MemorySegment.ofArray(out), 0);
        return out;
    }

    @Test
    void everyMessageOfOneConnectionRoundTrips() throws DecodeException {
        for (CmMessage m : List.of(CmMessages.req(), CmMessages.mra(), CmMessages.rep(), CmMessages.rtu(),
                CmMessages.dreq(), CmMessages.drep(), CmMessages.rej())) {
            CmMad mad = new CmMad(0x0102030405060708L, m);
            byte[] wire = encode(mad);
            CmMad back = CmMad.decode(MemorySegment.ofArray(wire), 0);
            assertEquals(mad.transactionId(), back.transactionId());
            // private data comes back padded to its room: compare the rest field by field, it by prefix
            assertArrayEquals(wire, encode(back), m.getClass().getSimpleName());
            assertEquals(m.attributeId(), back.message().attributeId());
            assertEquals(m.localCommId(), back.message().localCommId());
        }
    }

    @Test
    void theMadHeaderIsTheCmClassVersionTwoSend() {
        byte[] wire = encode(new CmMad(7, CmMessages.rtu()));
        assertEquals(1, wire[0]);
        assertEquals(0x07, wire[1]);
        assertEquals(2, wire[2]);
        assertEquals(0x03, wire[3]);
        assertEquals(0x00, wire[16]);
        assertEquals(0x14, wire[17]);
    }

    @Test
    void randomRequestsRoundTripFieldForField() throws DecodeException {
        Random r = new Random(4755);
        for (int i = 0; i < 2_000; i++) {
            CmPath primary = path(r);
            CmPath alternate = r.nextBoolean() ? null : path(r);
            byte[] priv = new byte[r.nextInt(CmReq.PRIVATE_DATA_LENGTH + 1)];
            r.nextBytes(priv);
            CmReq req = new CmReq(r.nextInt(), r.nextLong(), r.nextLong(), r.nextInt(), r.nextInt(1 << 24),
                    r.nextInt(256), r.nextInt(1 << 24), r.nextInt(256), r.nextInt(1 << 24), r.nextInt(32), r.nextInt(3),
                    r.nextBoolean(), r.nextInt(1 << 24), r.nextInt(32), r.nextInt(8), r.nextInt(1 << 16), r.nextInt(16),
                    r.nextBoolean(), r.nextInt(8), r.nextInt(16), r.nextBoolean(), r.nextInt(8), primary, alternate,
                    r.nextBoolean(), CmPrivateData.of(priv));
            byte[] wire = encode(new CmMad(i, req));
            CmReq back = (CmReq) CmMad.decode(MemorySegment.ofArray(wire), 0).message();
            assertTrue(back.privateData().startsWith(req.privateData()));
            assertEquals(new CmReq(req.localCommId(), req.serviceId(), req.localCaGuid(), req.localQkey(), req.localQpn(),
                    req.responderResources(), req.localEecn(), req.initiatorDepth(), req.remoteEecn(),
                    req.remoteCmResponseTimeout(), req.transportServiceType(), req.endToEndFlowControl(),
                    req.startingPsn(), req.localCmResponseTimeout(), req.retryCount(), req.partitionKey(), req.pathMtu(),
                    req.rdcExists(), req.rnrRetryCount(), req.maxCmRetries(), req.srq(), req.extendedTransportType(),
                    req.primary(), req.alternate(), req.sapSupported(), back.privateData()), back);
        }
    }

    private static CmPath path(Random r) {
        return new CmPath(r.nextInt(1 << 16), r.nextInt(1 << 16), new Gid(r.nextLong(), r.nextLong()),
                new Gid(r.nextLong() | 1, r.nextLong()), r.nextInt(1 << 20), r.nextInt(64), r.nextInt(256),
                r.nextInt(256), r.nextInt(16), r.nextBoolean(), r.nextInt(32));
    }

    @Test
    void ipoibConnectedModeDataIsTheUdQpnAndTheReceiveMtu() throws DecodeException {
        assertEquals(0x1000000000000049L, IpoibCm.serviceId(0x49));
        assertTrue(IpoibCm.isIpoibService(0x1000000000abcdefL));
        assertFalse(IpoibCm.isIpoibService(0x0000000001060000L));
        CmPrivateData data = IpoibCm.privateData(0x000049, 65524);
        assertArrayEquals(new byte[] {0, 0, 0, 0x49, 0, 0, (byte) 0xff, (byte) 0xf4}, data.toBytes());
        // The QPN's high octet is ignored on receive (Linux masks it with 0xffffff).
        CmPrivateData withFlags = CmPrivateData.of(new byte[] {(byte) 0x80, 0, 0, 0x49, 0, 0, 0x08, 0});
        assertEquals(0x49, IpoibCm.udQpn(withFlags));
        assertEquals(2048, IpoibCm.receiveMtu(withFlags));
        assertThrows(DecodeException.class, () -> IpoibCm.udQpn(CmPrivateData.of((byte) 1, (byte) 2)));
        assertThrows(IllegalArgumentException.class, () -> IpoibCm.serviceId(1 << 24));
    }

    @Test
    void thePrimaryPathSitsAtTheOctetsOfIbaTable106() {
        // include/rdma/ibta_vol1_c12.h: local LID 52, remote LID 54, GIDs 56 and 72, flow label in the
        // top 20 bits of the word at 88, packet rate in the low 6 bits of octet 91, traffic class 92,
        // hop limit 93, SL in the top 4 bits of 94 with subnet-local next, ACK timeout in the top 5 of 95.
        byte[] wire = encode(new CmMad(1, CmMessages.req()));
        int d = 24;
        assertEquals("00120034", hex(wire, d + 52, 4));
        assertEquals("fe800000000000000002c90300000001", hex(wire, d + 56, 16));
        assertEquals("fe800000000000000002c90300000002", hex(wire, d + 72, 16));
        assertEquals("12345003", hex(wire, d + 88, 4));
        assertEquals("20ff5890", hex(wire, d + 92, 4));
        // octet 43: remote CM response timeout 20 (top 5 bits), RC (2 bits), no flow control; octet 51:
        // 15 CM retries (top 4), SRQ (next bit)
        assertEquals("a0", hex(wire, d + 43, 1));
        assertEquals("f8", hex(wire, d + 51, 1));
    }

    private static String hex(byte[] b, int from, int length) {
        return java.util.HexFormat.of().formatHex(b, from, from + length);
    }

    @Test
    void anAbsentAlternatePathIsAllZerosAndDecodesAsNone() throws DecodeException {
        byte[] wire = encode(new CmMad(1, CmMessages.req()));
        for (int i = 24 + 96; i < 24 + 140; i++) {
            assertEquals(0, wire[i], "alternate path octet " + (i - 24));
        }
        assertNull(((CmReq) CmMad.decode(MemorySegment.ofArray(wire), 0).message()).alternate());
    }

    @Test
    void badInputIsRefusedWithTheFieldNamed() {
        byte[] wire = encode(new CmMad(1, CmMessages.req()));
        DecodeException truncated = assertThrows(DecodeException.class,
                () -> CmMad.decode(MemorySegment.ofArray(wire).asSlice(0, 200), 0));
        assertEquals("CM REQ", truncated.field());
        byte[] reserved = wire.clone();
        reserved[24 + 43] |= 0x06; // transport service type 3
        assertEquals("CM REQ transport service type",
                assertThrows(DecodeException.class, () -> CmMad.decode(MemorySegment.ofArray(reserved), 0)).field());
        byte[] sa = wire.clone();
        sa[1] = 0x03;
        assertEquals("CM MgmtClass", assertThrows(DecodeException.class, () -> CmMad.decode(MemorySegment.ofArray(sa), 0)).field());
        byte[] lap = wire.clone();
        lap[17] = 0x19;
        assertEquals("CM AttributeID",
                assertThrows(DecodeException.class, () -> CmMad.decode(MemorySegment.ofArray(lap), 0)).field());
        byte[] rej = encode(new CmMad(1, CmMessages.rej()));
        rej[24 + 9] = (byte) (73 << 1);
        assertEquals("CM REJ rejection information length",
                assertThrows(DecodeException.class, () -> CmMad.decode(MemorySegment.ofArray(rej), 0)).field());
        IllegalArgumentException big = assertThrows(IllegalArgumentException.class, () -> new CmRtu(1, 2,
                CmPrivateData.of(new byte[CmRtu.PRIVATE_DATA_LENGTH + 1])));
        assertEquals("CM RTU private data of 225 octets does not fit its 224", big.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new CmDreq(1, 2, 1 << 24, CmPrivateData.empty()));
    }
}
