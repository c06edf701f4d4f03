package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.agent.Attachment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * The control answers ibsim builds from its port and node structures rather than copying an
 * attribute (ibsim/ibsim.c lines 276–300 and 369–380), byte for byte as ibsim gives them on
 * Linux: host-order (little-endian) integers, the GID prefix as on the wire.
 */
final class ControlAnswers {
    private ControlAnswers() {}

    /** SIM_CTL_GET_PORT: {@code struct sim_port} {uint16_t lid; uint8_t state}. */
    static byte[] port(Attachment a) {
        return host(4).putShort((short) a.lid()).put((byte) a.portState()).array();
    }

    /** SIM_CTL_GET_VENDOR: {@code struct sim_vendor} {vendor_id, vendor_part_id, hw_ver, (4 octets), fw_ver}. */
    static byte[] vendor(Attachment a) {
        return host(24).putInt(a.vendorId()).putInt(a.vendorPartId()).putInt(a.hardwareVersion()).putInt(0)
                .putLong(a.firmwareVersion()).array();
    }

    /**
     * SIM_CTL_GET_GID: the GidPrefix as {@code mad_get_array} copies it off PortInfo
     * (big-endian), then the node GUID as ibsim's {@code memcpy} of its host-order
     * {@code uint64_t} leaves it (little-endian) — not the port GUID, and not in network order.
     */
    static byte[] gid(Attachment a) {
        byte[] gid = new byte[16];
        ByteBuffer.wrap(gid).order(ByteOrder.BIG_ENDIAN).putLong(0, a.gidPrefix());
        ByteBuffer.wrap(gid).order(ByteOrder.LITTLE_ENDIAN).putLong(8, a.nodeGuid());
        return gid;
    }

    /** SIM_CTL_GET_GUID: the node GUID in host order, as ibsim copies its {@code uint64_t}. */
    static byte[] guid(Attachment a) {
        return host(8).putLong(a.nodeGuid()).array();
    }

    private static ByteBuffer host(int size) {
        return ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
    }
}
