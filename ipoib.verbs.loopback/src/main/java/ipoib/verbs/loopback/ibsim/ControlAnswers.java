package ipoib.verbs.loopback.ibsim;

/**
 * The control answers ibsim derives from a port's PortInfo and its node's NodeInfo rather than
 * copying an attribute (ibsim/ibsim.c lines 276–300), byte for byte as ibsim gives them.
 */
final class ControlAnswers {
    private ControlAnswers() {}

    /** PortInfo: LID at octet 16 (big-endian), PortState in the low nibble of octet 32 (IBA 14.2.5.6). */
    private static final int PORTINFO_LID = 16;
    private static final int PORTINFO_STATE = 32;
    private static final int PORTINFO_GID_PREFIX = 8;
    /** NodeInfo: NodeGUID at octet 12 (IBA 14.2.5.3). */
    private static final int NODEINFO_GUID = 12;

    /** SIM_CTL_GET_PORT: {@code struct sim_port} {lid, state} in host order (little-endian). */
    static byte[] port(byte[] portInfo) {
        int lid = ((portInfo[PORTINFO_LID] & 0xff) << 8) | (portInfo[PORTINFO_LID + 1] & 0xff);
        return new byte[] {(byte) lid, (byte) (lid >>> 8), (byte) (portInfo[PORTINFO_STATE] & 0x0f), 0};
    }

    /**
     * SIM_CTL_GET_GID: the GID prefix as on the wire, then the node GUID as ibsim's
     * {@code memcpy} of its host-order {@code uint64_t} leaves it (little-endian).
     */
    static byte[] gid(byte[] portInfo, byte[] nodeInfo) {
        byte[] gid = new byte[16];
        System.arraycopy(portInfo, PORTINFO_GID_PREFIX, gid, 0, 8);
        byte[] guid = guid(nodeInfo);
        System.arraycopy(guid, 0, gid, 8, 8);
        return gid;
    }

    /** SIM_CTL_GET_GUID: the node GUID in host order (little-endian), as ibsim copies its {@code uint64_t}. */
    static byte[] guid(byte[] nodeInfo) {
        byte[] guid = new byte[8];
        for (int i = 0; i < 8; i++) {
            guid[i] = nodeInfo[NODEINFO_GUID + 7 - i];
        }
        return guid;
    }
}
