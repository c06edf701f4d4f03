package ipoib.codec.iba;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Builds UD SEND Only packets octet by octet from the layouts of IBA §7.7, §8.3, §9.2 and §9.3
 * (as drawn in draft-kashyap-ipv6-over-ib appendix B), without the code under test: the
 * reference that encoder and decoder are compared with.
 */
record IndependentPacket(int vl, int sl, int dlid, int slid, boolean global, int tclass, int flowLabel,
                         int hopLimit, long sgidHi, long sgidLo, long dgidHi, long dgidLo, boolean se, boolean m,
                         int pkey, int destQp, boolean ackReq, int psn, int qkey, int srcQp, byte[] payload) {

    byte[] build() {
        int pad = -payload.length & 3;
        int headers = 8 + (global ? 40 : 0) + 12 + 8;
        int total = headers + payload.length + pad + 4 + 2;
        ByteBuffer b = ByteBuffer.allocate(total).order(ByteOrder.BIG_ENDIAN);
        b.put((byte) (vl << 4)); // LVer 0
        b.put((byte) (sl << 4 | (global ? 3 : 2)));
        b.putShort((short) dlid);
        b.putShort((short) ((total - 2) / 4));
        b.putShort((short) slid);
        if (global) {
            b.putInt(6 << 28 | tclass << 20 | flowLabel);
            b.putShort((short) (total - 2 - 8 - 40));
            b.put((byte) 0x1B);
            b.put((byte) hopLimit);
            b.putLong(sgidHi).putLong(sgidLo).putLong(dgidHi).putLong(dgidLo);
        }
        b.put((byte) 0x64);
        b.put((byte) ((se ? 0x80 : 0) | (m ? 0x40 : 0) | pad << 4));
        b.putShort((short) pkey);
        b.putInt(destQp); // Resv8a zero
        b.putInt((ackReq ? 0x8000_0000 : 0) | psn);
        b.putInt(qkey);
        b.putInt(srcQp);
        b.put(payload);
        b.put(new byte[pad]);
        byte[] packet = b.array();
        int icrcOffset = total - 6;
        int icrc = IndependentCrc.icrc(packet, icrcOffset);
        ByteBuffer.wrap(packet, icrcOffset, 4).order(ByteOrder.LITTLE_ENDIAN).putInt(icrc);
        int vcrc = IndependentCrc.vcrc(packet, total - 2);
        ByteBuffer.wrap(packet, total - 2, 2).order(ByteOrder.LITTLE_ENDIAN).putShort((short) vcrc);
        return packet;
    }

    /** Sets every header field of {@code packet} to this description's (derived fields excepted). */
    void configure(UdPacket packet) {
        packet.global(global);
        packet.lrh().virtualLane(vl).serviceLevel(sl).destinationLid(dlid).sourceLid(slid);
        packet.grh().trafficClass(tclass).flowLabel(flowLabel).hopLimit(hopLimit).sourceGid(sgidHi, sgidLo)
                .destinationGid(dgidHi, dgidLo);
        packet.bth().solicitedEvent(se).migrationRequest(m).partitionKey(pkey).destinationQp(destQp).ackRequest(ackReq)
                .packetSequenceNumber(psn);
        packet.deth().queueKey(qkey).sourceQp(srcQp);
    }
}
