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
     * @param timeNanos when it was sent ({@link System#nanoTime()} based wall clock in ns)
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
}
