package ipoib.api;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every value type refuses invalid input with a message naming the value and what is allowed. */
class ValueTypesTest {

    private static void refused(org.junit.jupiter.api.function.Executable e, String... mustMention) {
        IllegalArgumentException ex = assertThrows(IllegalArgumentException.class, e);
        for (String m : mustMention) {
            assertTrue(ex.getMessage().contains(m), () -> "message '" + ex.getMessage() + "' should mention " + m);
        }
    }

    @Test
    void gidOfWrongLengthIsRefused() {
        refused(() -> Gid.fromBytes(new byte[17]), "17 octets", "16");
        refused(() -> Gid.fromBytes(new byte[15]), "15 octets");
        refused(() -> Gid.fromBytes(null), "null");
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "fe80", "fe80::1::2", "fe80:0:0:0:0:0:0:0:1", "fe80::12345", "gggg::1", "1.2.3.4",
            ":fe80::1", "fe80:::1", "fe80::1%eth0"})
    void malformedGidTextIsRefused(String text) {
        refused(() -> Gid.parse(text), "GID", "IPv6");
    }

    @Test
    void gidTextFollowsRfc5952() {
        assertEquals("fe80::2:c903:0:1", Gid.parse("FE80:0000:0000:0000:0002:C903:0000:0001").toString());
        assertEquals("::", Gid.ZERO.toString());
        assertEquals("ff12:401b:ffff::ffff:ffff", Gid.parse("ff12:401b:ffff:0:0:0:ffff:ffff").toString());
        // A single zero group is not compressed; the first of two equal runs is (RFC 5952 4.2.2, 4.2.3).
        assertEquals("1:0:2:3:4:5:6:7", Gid.parse("1:0:2:3:4:5:6:7").toString());
    }

    @Test
    void longestZeroRunIsCompressed() {
        assertEquals("1:0:0:4::7", Gid.parse("1:0:0:4:0:0:0:7").toString());
        assertEquals("1::4:0:0:7", Gid.parse("1:0:0:0:4:0:0:7").toString());
        assertEquals("1::4:0:7", Gid.parse("1:0:0:0:0:4:0:7").toString());
    }

    @Test
    void gidBytesAreNetworkOrder() {
        Gid gid = Gid.parse("fe80::2:c903:0:1");
        byte[] b = gid.toBytes();
        assertEquals((byte) 0xfe, b[0]);
        assertEquals((byte) 0x80, b[1]);
        assertEquals((byte) 0xc9, b[10]);
        assertEquals((byte) 0x01, b[15]);
        assertEquals(gid, Gid.fromBytes(b));
        assertEquals(Guid.parse("0002:c903:0000:0001"), gid.guid());
    }

    @Test
    void qpnBeyond24BitsIsRefused() {
        refused(() -> Qpn.of(0x1000000), "QPN", "0xFFFFFF");
        refused(() -> Qpn.of(-1), "QPN");
        refused(() -> Qpn.parse("0x1000000"), "QPN", "24 bits");
        refused(() -> Qpn.parse("-5"), "QPN");
        refused(() -> Qpn.parse("0x"), "QPN");
        assertEquals(0xFFFFFF, Qpn.parse("0xffffff").value());
        assertEquals("0x000048", Qpn.of(0x48).toString());
    }

    @ParameterizedTest
    @ValueSource(ints = {0x0000, 0x8000, -1, 0x10000})
    void invalidPKeysAreRefused(int value) {
        refused(() -> PKey.of(value), "P_Key", "0x0000 and 0x8000 are invalid");
    }

    @Test
    void pkeyMembershipAndPartitionRules() {
        PKey full = PKey.parse("0xffff");
        PKey limited = PKey.parse("0x7fff");
        assertTrue(full.isFullMember());
        assertFalse(limited.isFullMember());
        assertEquals(full, limited.asFullMember());
        assertEquals(limited, full.asLimitedMember());
        assertTrue(full.canCommunicateWith(limited));
        assertFalse(limited.canCommunicateWith(limited), "two limited members cannot talk");
        assertFalse(full.canCommunicateWith(PKey.of(0x8001)), "different partitions cannot talk");
        refused(() -> PKey.parse("ffff"), "P_Key");
    }

    @Test
    void qkeyControlledBit() {
        assertTrue(QKey.parse("0x80010000").isControlled());
        assertFalse(QKey.parse("0x0b1b").isControlled());
        assertEquals(0xFFFF_FFFFL, QKey.parse("0xffffffff").unsigned());
        refused(() -> QKey.parse("0x100000000"), "Q_Key", "32 bits");
        refused(() -> QKey.ofUnsigned(-1), "Q_Key");
    }

    @Test
    void ibMtuRangeAndIpoibOverhead() {
        assertEquals(2044, IbMtu.fromBytes(2048).ipoibMtu());
        assertEquals(4092, IbMtu.MTU_4096.ipoibMtu());
        assertEquals(IbMtu.MTU_2048, IbMtu.fromCode(4));
        refused(() -> IbMtu.fromBytes(3000), "3000", "256, 512, 1024, 2048, 4096");
        refused(() -> IbMtu.fromBytes(128), "128");
        refused(() -> IbMtu.fromCode(6), "IB MTU code");
        refused(() -> IbMtu.parse("8192"), "IB MTU");
    }

    @Test
    void lidClasses() {
        assertTrue(Lid.of(1).isUnicast());
        assertTrue(Lid.of(0xBFFF).isUnicast());
        assertTrue(Lid.of(0xC000).isMulticast());
        assertFalse(Lid.of(0xFFFF).isMulticast());
        assertFalse(Lid.UNASSIGNED.isUnicast());
        assertEquals(Lid.of(18), Lid.parse("0x12"));
        assertEquals(Lid.of(18), Lid.parse("18"));
        refused(() -> Lid.of(0x10000), "LID");
        refused(() -> Lid.parse("0x1_0000"), "LID");
    }

    @Test
    void guidTextForms() {
        Guid g = Guid.parse("0x0002c90300000001");
        assertEquals(g, Guid.parse("0002:c903:0000:0001"));
        assertEquals(g, Guid.parse("00:02:c9:03:00:00:00:01"));
        assertEquals("0002:c903:0000:0001", g.toString());
        refused(() -> Guid.parse("0x02c90300000001"), "GUID");
        refused(() -> Guid.parse("0002:c903:0000:000g"), "GUID", "'g'");
        refused(() -> Guid.parse("00-02-c9-03-00-00-00-01"), "GUID");
    }

    @Test
    void mgidMustBeMulticast() {
        refused(() -> Mgid.parse("fe80::1"), "MGID", "ff");
        Mgid broadcast = Mgid.parse("ff12:401b:ffff::ffff:ffff");
        assertEquals(2, broadcast.scope());
        assertTrue(broadcast.isTransient());
        assertEquals(0x1, broadcast.flags());
    }

    @Test
    void linkAddressTextIsLinuxForm() {
        String text = "80:00:00:48:fe:80:00:00:00:00:00:00:00:02:c9:03:00:00:00:01";
        LinkAddress address = LinkAddress.parse(text);
        assertAll(
                () -> assertEquals(0x80, address.flags()),
                () -> assertEquals(Qpn.of(0x48), address.qpn()),
                () -> assertEquals(Gid.parse("fe80::2:c903:0:1"), address.gid()),
                () -> assertEquals(text, address.toString()),
                () -> assertEquals(LinkAddress.of(Qpn.of(0x48), address.gid()), address.withoutFlags()));
        refused(() -> LinkAddress.parse("80:00:00:48"), "link address", "20", "found 4");
        refused(() -> LinkAddress.parse(text + ":00"), "found 21");
        refused(() -> LinkAddress.parse(text.replace("80:00:00:48", "80:00:00:4g")), "'g'");
        refused(() -> new LinkAddress(0x100, Qpn.of(1), Gid.ZERO), "flags");
        assertTrue(LinkAddress.multicast(Mgid.parse("ff12:401b:ffff::ffff:ffff")).isMulticast());
    }

    @Test
    void joinStates() {
        assertEquals(JoinState.FULL_MEMBER, JoinState.parse("FullMember"));
        assertEquals(JoinState.SEND_ONLY_NON_MEMBER, JoinState.fromBit(4));
        assertFalse(JoinState.SEND_ONLY_NON_MEMBER.receives());
        refused(() -> JoinState.fromBit(3), "join state");
        // IBA 1.3 errata: SendOnlyFullMember (0x8) sends only but keeps the group like a FullMember.
        assertEquals(JoinState.SEND_ONLY_FULL_MEMBER, JoinState.fromBit(8));
        assertEquals(true, JoinState.SEND_ONLY_FULL_MEMBER.full());
        assertEquals(false, JoinState.SEND_ONLY_FULL_MEMBER.receives());
        assertEquals(false, JoinState.SEND_ONLY_NON_MEMBER.full());
        assertEquals(JoinState.NONE, JoinState.fromBit(0), "the untrusted table view");
        assertEquals(false, JoinState.NONE.receives() || JoinState.NONE.full());
        refused(() -> JoinState.parse("Member"), "FullMember, NonMember, SendOnlyNonMember");
    }

    @Test
    void recordsValidateTheirFields() {
        Gid g = Gid.parse("fe80::1");
        refused(() -> new PathRecord(g, g, Lid.of(1), Lid.of(2), 0x100000, PKey.DEFAULT, 0, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, 0, 0, 0), "flow label");
        refused(() -> new PathRecord(g, g, Lid.of(1), Lid.of(2), 0, PKey.DEFAULT, 16, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, 0, 0, 0), "service level", "15");
        refused(() -> new PathRecord(null, g, Lid.of(1), Lid.of(2), 0, PKey.DEFAULT, 0, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, 0, 0, 0), "destinationGid");
        Mgid m = Mgid.parse("ff12:401b:ffff::ffff:ffff");
        refused(() -> new McMemberRecord(m, g, QKey.of(0xb1b), Lid.of(0xc000), IbMtu.MTU_2048, 256, PKey.DEFAULT,
                Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false), "traffic class");
        McMemberRecord r = new McMemberRecord(m, g, QKey.of(0xb1b), Lid.of(0xc000), IbMtu.MTU_2048, 0,
                PKey.DEFAULT, Rate.RATE_10_GBPS, 0, 0, 0, 0, JoinState.FULL_MEMBER, false);
        assertEquals(2, r.scope());
        assertEquals(JoinState.NON_MEMBER, r.forMember(g, JoinState.NON_MEMBER).joinState());
    }
}
