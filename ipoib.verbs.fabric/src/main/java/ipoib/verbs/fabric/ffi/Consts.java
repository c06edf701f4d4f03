package ipoib.verbs.fabric.ffi;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Enum and flag values of {@code <infiniband/verbs.h>} and {@code <infiniband/umad.h>} that the
 * binding uses, with their C names. LayoutTest prints each C name from the system headers and
 * compares.
 */
public final class Consts {
    private Consts() {}

    private static final Map<String, Long> ALL = new LinkedHashMap<>();

    private static int c(String name, int value) {
        ALL.put(name, (long) value);
        return value;
    }

    // enum ibv_qp_type, ibv_qp_state, ibv_qp_attr_mask
    public static final int IBV_QPT_UD = c("IBV_QPT_UD", 4);
    public static final int IBV_QPS_RESET = c("IBV_QPS_RESET", 0);
    public static final int IBV_QPS_INIT = c("IBV_QPS_INIT", 1);
    public static final int IBV_QPS_RTR = c("IBV_QPS_RTR", 2);
    public static final int IBV_QPS_RTS = c("IBV_QPS_RTS", 3);
    public static final int IBV_QPS_SQD = c("IBV_QPS_SQD", 4);
    public static final int IBV_QPS_SQE = c("IBV_QPS_SQE", 5);
    public static final int IBV_QPS_ERR = c("IBV_QPS_ERR", 6);
    public static final int IBV_QP_STATE = c("IBV_QP_STATE", 1);
    public static final int IBV_QP_PKEY_INDEX = c("IBV_QP_PKEY_INDEX", 1 << 4);
    public static final int IBV_QP_PORT = c("IBV_QP_PORT", 1 << 5);
    public static final int IBV_QP_QKEY = c("IBV_QP_QKEY", 1 << 6);
    public static final int IBV_QP_SQ_PSN = c("IBV_QP_SQ_PSN", 1 << 16);
    // RC: the attributes ibv_modify_qp(3) requires for each transition of an IBV_QPT_RC queue pair
    public static final int IBV_QPT_RC = c("IBV_QPT_RC", 2);
    public static final int IBV_QP_ACCESS_FLAGS = c("IBV_QP_ACCESS_FLAGS", 1 << 3);
    public static final int IBV_QP_AV = c("IBV_QP_AV", 1 << 7);
    public static final int IBV_QP_PATH_MTU = c("IBV_QP_PATH_MTU", 1 << 8);
    public static final int IBV_QP_TIMEOUT = c("IBV_QP_TIMEOUT", 1 << 9);
    public static final int IBV_QP_RETRY_CNT = c("IBV_QP_RETRY_CNT", 1 << 10);
    public static final int IBV_QP_RNR_RETRY = c("IBV_QP_RNR_RETRY", 1 << 11);
    public static final int IBV_QP_RQ_PSN = c("IBV_QP_RQ_PSN", 1 << 12);
    public static final int IBV_QP_MAX_QP_RD_ATOMIC = c("IBV_QP_MAX_QP_RD_ATOMIC", 1 << 13);
    public static final int IBV_QP_MIN_RNR_TIMER = c("IBV_QP_MIN_RNR_TIMER", 1 << 15);
    public static final int IBV_QP_MAX_DEST_RD_ATOMIC = c("IBV_QP_MAX_DEST_RD_ATOMIC", 1 << 17);
    public static final int IBV_QP_DEST_QPN = c("IBV_QP_DEST_QPN", 1 << 20);

    // enum ibv_wr_opcode, ibv_send_flags, ibv_access_flags
    public static final int IBV_WR_SEND = c("IBV_WR_SEND", 2);
    public static final int IBV_SEND_SIGNALED = c("IBV_SEND_SIGNALED", 1 << 1);
    public static final int IBV_ACCESS_LOCAL_WRITE = c("IBV_ACCESS_LOCAL_WRITE", 1);
    public static final int IBV_ACCESS_REMOTE_WRITE = c("IBV_ACCESS_REMOTE_WRITE", 1 << 1);

    // enum ibv_wc_status, ibv_wc_opcode, ibv_wc_flags
    public static final int IBV_WC_SUCCESS = c("IBV_WC_SUCCESS", 0);
    public static final int IBV_WC_LOC_LEN_ERR = c("IBV_WC_LOC_LEN_ERR", 1);
    public static final int IBV_WC_LOC_QP_OP_ERR = c("IBV_WC_LOC_QP_OP_ERR", 2);
    public static final int IBV_WC_LOC_PROT_ERR = c("IBV_WC_LOC_PROT_ERR", 4);
    public static final int IBV_WC_WR_FLUSH_ERR = c("IBV_WC_WR_FLUSH_ERR", 5);
    public static final int IBV_WC_REM_INV_REQ_ERR = c("IBV_WC_REM_INV_REQ_ERR", 9);
    public static final int IBV_WC_REM_ACCESS_ERR = c("IBV_WC_REM_ACCESS_ERR", 10);
    public static final int IBV_WC_REM_OP_ERR = c("IBV_WC_REM_OP_ERR", 11);
    public static final int IBV_WC_RETRY_EXC_ERR = c("IBV_WC_RETRY_EXC_ERR", 12);
    public static final int IBV_WC_RNR_RETRY_EXC_ERR = c("IBV_WC_RNR_RETRY_EXC_ERR", 13);
    public static final int IBV_WC_SEND = c("IBV_WC_SEND", 0);
    public static final int IBV_WC_RECV = c("IBV_WC_RECV", 128);
    public static final int IBV_WC_GRH = c("IBV_WC_GRH", 1);

    // enum ibv_port_state, ibv_mtu
    public static final int IBV_PORT_NOP = c("IBV_PORT_NOP", 0);
    public static final int IBV_PORT_DOWN = c("IBV_PORT_DOWN", 1);
    public static final int IBV_PORT_INIT = c("IBV_PORT_INIT", 2);
    public static final int IBV_PORT_ARMED = c("IBV_PORT_ARMED", 3);
    public static final int IBV_PORT_ACTIVE = c("IBV_PORT_ACTIVE", 4);
    public static final int IBV_PORT_ACTIVE_DEFER = c("IBV_PORT_ACTIVE_DEFER", 5);
    public static final int IBV_MTU_256 = c("IBV_MTU_256", 1);
    public static final int IBV_MTU_512 = c("IBV_MTU_512", 2);
    public static final int IBV_MTU_1024 = c("IBV_MTU_1024", 3);
    public static final int IBV_MTU_2048 = c("IBV_MTU_2048", 4);
    public static final int IBV_MTU_4096 = c("IBV_MTU_4096", 5);
    public static final int IBV_LINK_LAYER_INFINIBAND = c("IBV_LINK_LAYER_INFINIBAND", 1);
    public static final int IBV_LINK_LAYER_ETHERNET = c("IBV_LINK_LAYER_ETHERNET", 2);

    // enum ibv_event_type
    public static final int IBV_EVENT_CQ_ERR = c("IBV_EVENT_CQ_ERR", 0);
    public static final int IBV_EVENT_QP_FATAL = c("IBV_EVENT_QP_FATAL", 1);
    public static final int IBV_EVENT_QP_REQ_ERR = c("IBV_EVENT_QP_REQ_ERR", 2);
    public static final int IBV_EVENT_QP_ACCESS_ERR = c("IBV_EVENT_QP_ACCESS_ERR", 3);
    public static final int IBV_EVENT_COMM_EST = c("IBV_EVENT_COMM_EST", 4);
    public static final int IBV_EVENT_DEVICE_FATAL = c("IBV_EVENT_DEVICE_FATAL", 8);
    public static final int IBV_EVENT_PORT_ACTIVE = c("IBV_EVENT_PORT_ACTIVE", 9);
    public static final int IBV_EVENT_PORT_ERR = c("IBV_EVENT_PORT_ERR", 10);
    public static final int IBV_EVENT_LID_CHANGE = c("IBV_EVENT_LID_CHANGE", 11);
    public static final int IBV_EVENT_PKEY_CHANGE = c("IBV_EVENT_PKEY_CHANGE", 12);
    public static final int IBV_EVENT_SM_CHANGE = c("IBV_EVENT_SM_CHANGE", 13);
    public static final int IBV_EVENT_SRQ_ERR = c("IBV_EVENT_SRQ_ERR", 14);
    public static final int IBV_EVENT_SRQ_LIMIT_REACHED = c("IBV_EVENT_SRQ_LIMIT_REACHED", 15);
    public static final int IBV_EVENT_QP_LAST_WQE_REACHED = c("IBV_EVENT_QP_LAST_WQE_REACHED", 16);
    public static final int IBV_EVENT_CLIENT_REREGISTER = c("IBV_EVENT_CLIENT_REREGISTER", 17);
    public static final int IBV_EVENT_GID_CHANGE = c("IBV_EVENT_GID_CHANGE", 18);
    public static final int IBV_EVENT_WQ_FATAL = c("IBV_EVENT_WQ_FATAL", 19);

    // umad.h
    public static final int UMAD_CA_NAME_LEN = c("UMAD_CA_NAME_LEN", Structs.UMAD_CA_NAME_LEN);

    // poll.h, sys/eventfd.h, errno.h
    public static final short POLLIN = (short) c("POLLIN", 0x1);
    public static final int EFD_CLOEXEC = c("EFD_CLOEXEC", 0x80000);
    public static final int EFD_NONBLOCK = c("EFD_NONBLOCK", 0x800);
    public static final int EINTR = c("EINTR", 4);
    public static final int EAGAIN = c("EAGAIN", 11);
    public static final int ENOMEM = c("ENOMEM", 12);
    public static final int EINVAL = c("EINVAL", 22);
    public static final int ETIMEDOUT = c("ETIMEDOUT", 110);

    /** Every constant by C name, for the layout test. */
    public static Map<String, Long> all() {
        return Collections.unmodifiableMap(ALL);
    }
}
