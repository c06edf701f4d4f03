package ipoib.codec.mad;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Mgid;
import java.util.List;
import org.junit.jupiter.api.Test;

class SaAttributeTest {

    /** IDs and lengths of IBA 1.2.1 table 206 (§15.2.5) and §13.4.8; MCMemberRecords 56 apart in tables (OpenSM). */
    @Test
    void eachAttributeHasTheIdAndLengthsOfTheSpecification() {
        assertEquals(List.of("ClassPortInfo 0x0001 72 0", "Notice 0x0002 80 0", "InformInfo 0x0003 36 0",
                "PathRecord 0x0035 64 64", "MCMemberRecord 0x0038 52 56"),
                SaAttribute.ALL.stream().map(a -> String.format("%s 0x%04x %d %d", a.name(), a.id(), a.length(),
                        a.tableStride())).toList());
        assertEquals(SaAttribute.PATH_RECORD, SaAttribute.byId(0x35).orElseThrow());
        assertEquals("attribute 0x0031", SaAttribute.nameOf(0x31));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SaAttribute.byName("ServiceRecord"));
        assertTrue(e.getMessage().contains("PathRecord"), e.getMessage());
    }

    @Test
    void aRecordGoesToItsOctetsAndBack() throws Exception {
        SaMcMemberRecord member = SaMcMemberRecord.join(Mgid.parse("ff12:401b:ffff::1"), Gid.parse("fe80::2:c903:0:1"),
                JoinState.FULL_MEMBER);
        byte[] octets = SaAttribute.MC_MEMBER_RECORD.toBytes(member);
        assertEquals(52, octets.length);
        assertEquals(member, SaAttribute.MC_MEMBER_RECORD.fromBytes(octets));
        assertArrayEquals(octets, SaAttribute.MC_MEMBER_RECORD.toBytes(SaAttribute.MC_MEMBER_RECORD.fromBytes(octets)));
    }

    @Test
    void aDescriptorWithAnImpossibleStrideIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new SaAttribute<>(0x38,
                "MCMemberRecord", 52, 52, SaMcMemberRecord.class, SaMcMemberRecord::encode, SaMcMemberRecord::decode));
        assertTrue(e.getMessage().contains("multiple of 8"), e.getMessage());
    }
}
