package ipoib.verbs.loopback.ibsim;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The datagrams of ibsim's protocol, laid out as {@code include/ibsim.h} of ibsim 0.10–0.12
 * declares them and as the C compiler places them on Linux (x86-64, AArch64).
 *
 * <p>{@code struct sim_ctl} (ibsim.h line 90): magic, clientid, type, len (host-order
 * {@code uint32_t}) and 64 octets of data — 80 octets. The control fields are in host order,
 * as client and server share the machine.
 *
 * <p>{@code struct sim_request} (ibsim.h line 64): dlid, slid, dqp, sqp, status
 * ({@code uint32_t}), four octets of padding, length ({@code uint64_t}) and the MAD (256
 * octets) — 288 octets. umad2sim stores the umad address fields as they come, in network
 * order: the LIDs are a big-endian {@code __be16} in the first two octets of their
 * {@code uint32_t} ({@code umad2sim_write}, {@code ibsim}'s {@code ntohs(r->dlid)}), the QPs
 * and the status big-endian 32-bit, the length big-endian 64-bit ({@code htobe64}).
 */
final class SimWire {
    private SimWire() {}

    /** SIM_MAGIC. */
    static final int MAGIC = 0xdeadbeef;
    /** IBSIM_MAX_CLIENTS: the client slots, each with its own data socket. */
    static final int MAX_CLIENTS = 10;
    /** IBSIM_DEFAULT_SERVER_PORT. */
    static final int DEFAULT_PORT = 7070;
    /** SIM_BASENAME. */
    static final String DEFAULT_BASENAME = "sim";

    /** sizeof(struct sim_ctl). */
    static final int CTL_SIZE = 80;
    /** SIM_CTL_MAX_DATA: the data of a control datagram. */
    static final int CTL_DATA = 64;
    static final int CTL_MAGIC = 0;
    static final int CTL_CLIENT = 4;
    static final int CTL_TYPE = 8;
    static final int CTL_LEN = 12;
    static final int CTL_DATA_OFFSET = 16;

    /** enum SIM_CTL_TYPES (ibsim.h line 74). */
    static final int ERROR = 0;
    static final int CONNECT = 1;
    static final int DISCONNECT = 2;
    static final int GET_PORT = 3;
    static final int GET_VENDOR = 4;
    static final int GET_GID = 5;
    static final int GET_GUID = 6;
    static final int GET_NODEINFO = 7;
    static final int GET_PORTINFO = 8;
    static final int SET_ISSM = 9;
    static final int GET_PKEYS = 10;

    /** struct sim_client_info (ibsim.h line 98), in a control datagram's data: id, qp, issm, nodeid[32]. */
    static final int INFO_ID = CTL_DATA_OFFSET;
    static final int INFO_QP = CTL_DATA_OFFSET + 4;
    static final int INFO_ISSM = CTL_DATA_OFFSET + 8;
    static final int INFO_NODEID = CTL_DATA_OFFSET + 12;
    static final int NODEID_SIZE = 32;

    /** sizeof(struct sim_request). */
    static final int REQUEST_SIZE = 288;
    static final int REQ_DLID = 0;
    static final int REQ_SLID = 4;
    static final int REQ_DQP = 8;
    static final int REQ_SQP = 12;
    static final int REQ_STATUS = 16;
    static final int REQ_LENGTH = 24;
    static final int REQ_MAD = 32;
    static final int MAD_SIZE = 256;

    /** A buffer for one control datagram, in host order. */
    static ByteBuffer controlBuffer() {
        return ByteBuffer.allocateDirect(CTL_SIZE).order(ByteOrder.nativeOrder());
    }

    /** A buffer for one request datagram; the network-order fields are read with explicit byte order. */
    static ByteBuffer requestBuffer() {
        return ByteBuffer.allocateDirect(REQUEST_SIZE).order(ByteOrder.BIG_ENDIAN);
    }

    /** The NUL-terminated node id of a CONNECT's {@code sim_client_info}. */
    static String nodeId(ByteBuffer ctl) {
        byte[] raw = new byte[NODEID_SIZE];
        ctl.get(INFO_NODEID, raw);
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.ISO_8859_1);
    }

    /** Writes the node id as {@code strncpy(scl->nodeid, name, sizeof(scl->nodeid) - 1)} does: at most 31 octets, NUL-padded. */
    static void putNodeId(ByteBuffer ctl, String name) {
        byte[] bytes = name.getBytes(StandardCharsets.ISO_8859_1);
        int n = Math.min(bytes.length, NODEID_SIZE - 1);
        for (int i = 0; i < NODEID_SIZE; i++) {
            ctl.put(INFO_NODEID + i, i < n ? bytes[i] : 0);
        }
    }

    /** Copies {@code answer} into the control data, zero-filling the rest of its 64 octets. */
    static void putData(ByteBuffer ctl, byte[] answer) {
        int n = Math.min(answer.length, CTL_DATA);
        for (int i = 0; i < CTL_DATA; i++) {
            ctl.put(CTL_DATA_OFFSET + i, i < n ? answer[i] : 0);
        }
    }

    /** A 16-bit LID stored as umad2sim stores a {@code __be16} in a {@code uint32_t} field. */
    static int lid(ByteBuffer request, int offset) {
        return request.getShort(offset) & 0xffff;
    }

    static void putLid(ByteBuffer request, int offset, int lid) {
        request.putShort(offset, (short) lid);
        request.putShort(offset + 2, (short) 0);
    }
}
