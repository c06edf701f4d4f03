package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;

/**
 * Sees every packet the fabric carries, as the fields of its IBA headers and its payload, so
 * that a capture can render full packets (LRH, GRH, BTH, DETH, payload, ICRC, VCRC). Runs on
 * the sender's thread: keep it short. Only when a tap is set does the fabric copy payloads.
 */
@FunctionalInterface
public interface WireTap {

    /**
     * One packet on the wire.
     *
     * @param timeNanos when it was sent, ns since the epoch: one wall-clock reading at the fabric's start plus its clock since
     * @param slid source LID
     * @param dlid destination LID (an MLID for multicast)
     * @param serviceLevel SL
     * @param grh whether a GRH is present
     * @param sgid source GID (null without GRH)
     * @param dgid destination GID (null without GRH)
     * @param trafficClass GRH traffic class
     * @param flowLabel GRH flow label
     * @param hopLimit GRH hop limit
     * @param pkey the BTH P_Key
     * @param destinationQpn the BTH destination QP
     * @param qkey the DETH Q_Key
     * @param sourceQpn the DETH source QP
     * @param payload the datagram (a copy)
     */
    record Packet(long timeNanos, int slid, int dlid, int serviceLevel, boolean grh, Gid sgid, Gid dgid,
                  int trafficClass, int flowLabel, int hopLimit, int pkey, int destinationQpn, int qkey,
                  int sourceQpn, byte[] payload) {}

    void packet(Packet packet);

    /**
     * One RC packet on the wire (IBA 9.2, 9.7): a SEND First/Middle/Last/Only with its payload, or
     * an ACKNOWLEDGE with its AETH. The loopback fabric connects RC queue pairs within the subnet,
     * so there is no GRH.
     *
     * @param timeNanos when it was sent (wall clock in ns)
     * @param slid source LID
     * @param dlid destination LID
     * @param serviceLevel SL
     * @param pkey the BTH P_Key
     * @param destinationQpn the BTH destination QP
     * @param opcode the BTH OpCode (RC: SEND First 0x00, Middle 0x01, Last 0x02, Only 0x04, ACKNOWLEDGE 0x11)
     * @param ackRequest the BTH AckReq bit
     * @param psn the BTH PSN
     * @param syndrome the AETH syndrome, or -1 without an AETH
     * @param msn the AETH MSN
     * @param payload the packet's payload (a copy; empty for an ACK)
     */
    record RcPacket(long timeNanos, int slid, int dlid, int serviceLevel, int pkey, int destinationQpn, int opcode,
                    boolean ackRequest, int psn, int syndrome, int msn, byte[] payload) {}

    /** RC SEND First, Middle, Last, Only and ACKNOWLEDGE (IBA 9.2, table 38: RC, 000 prefix). */
    int RC_SEND_FIRST = 0x00;
    int RC_SEND_MIDDLE = 0x01;
    int RC_SEND_LAST = 0x02;
    int RC_SEND_ONLY = 0x04;
    int RC_ACKNOWLEDGE = 0x11;

    /** One RC packet; a tap that does not show RC ignores it. */
    default void rcPacket(RcPacket packet) {
    }
}
