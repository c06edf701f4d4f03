package ipoib.verbs.fabric.ffi;

import static ipoib.verbs.fabric.ffi.CLayout.PTR;
import static ipoib.verbs.fabric.ffi.CLayout.U16;
import static ipoib.verbs.fabric.ffi.CLayout.U32;
import static ipoib.verbs.fabric.ffi.CLayout.U64;
import static ipoib.verbs.fabric.ffi.CLayout.U8;
import static ipoib.verbs.fabric.ffi.CLayout.m;
import static ipoib.verbs.fabric.ffi.CLayout.opaque;
import static ipoib.verbs.fabric.ffi.CLayout.struct;
import static ipoib.verbs.fabric.ffi.CLayout.union;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemoryLayout.PathElement;
import java.lang.foreign.StructLayout;
import java.lang.invoke.VarHandle;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The C structs of {@code <infiniband/verbs.h>} (rdma-core) and {@code <infiniband/umad.h>} that
 * the binding reads or writes, with the member names of the headers. LayoutTest compiles a C
 * program against the system headers and compares every named member's offset and size, and the
 * size of every struct. Members whose names begin with {@code $} stand for anonymous C unions
 * that the binding never touches; only the struct size checks them.
 */
public final class Structs {
    private Structs() {}

    private static final Map<String, StructLayout> COMPLETE = new LinkedHashMap<>();

    private static StructLayout complete(String cType, StructLayout layout) {
        COMPLETE.put(cType, layout);
        return layout;
    }

    // ---- verbs.h ------------------------------------------------------------------------

    /** union ibv_gid: 16 octets in network order, 8-aligned (it has a __be64 view). */
    public static final MemoryLayout IBV_GID = union("ibv_gid", opaque("raw", 16, 1),
            struct("global", m("subnet_prefix", U64), m("interface_id", U64)));

    /** pthread_mutex_t and pthread_cond_t of glibc on 64-bit Linux. */
    private static MemoryLayout mutex(String name) {
        return opaque(name, 40, 8);
    }

    private static MemoryLayout cond(String name) {
        return opaque(name, 48, 8);
    }

    public static final StructLayout IBV_CONTEXT_OPS = struct("ops",
            m("_compat_query_device", PTR), m("_compat_query_port", PTR), m("_compat_alloc_pd", PTR),
            m("_compat_dealloc_pd", PTR), m("_compat_reg_mr", PTR), m("_compat_rereg_mr", PTR),
            m("_compat_dereg_mr", PTR), m("alloc_mw", PTR), m("bind_mw", PTR), m("dealloc_mw", PTR),
            m("_compat_create_cq", PTR), m("poll_cq", PTR), m("req_notify_cq", PTR), m("_compat_cq_event", PTR),
            m("_compat_resize_cq", PTR), m("_compat_destroy_cq", PTR), m("_compat_create_srq", PTR),
            m("_compat_modify_srq", PTR), m("_compat_query_srq", PTR), m("_compat_destroy_srq", PTR),
            m("post_srq_recv", PTR), m("_compat_create_qp", PTR), m("_compat_query_qp", PTR),
            m("_compat_modify_qp", PTR), m("_compat_destroy_qp", PTR), m("post_send", PTR), m("post_recv", PTR),
            m("_compat_create_ah", PTR), m("_compat_destroy_ah", PTR), m("_compat_attach_mcast", PTR),
            m("_compat_detach_mcast", PTR), m("_compat_async_event", PTR));

    public static final StructLayout IBV_CONTEXT = complete("struct ibv_context", struct("ibv_context",
            m("device", PTR), IBV_CONTEXT_OPS, m("cmd_fd", U32), m("async_fd", U32), m("num_comp_vectors", U32),
            mutex("mutex"), m("abi_compat", PTR)));

    /**
     * struct verbs_context: the extended context that embeds {@code ibv_context} as its last
     * member. {@code ibv_query_port} is a static inline that calls {@code query_port} from here.
     */
    public static final StructLayout VERBS_CONTEXT = complete("struct verbs_context", struct("verbs_context",
            m("query_port", PTR), m("advise_mr", PTR), m("alloc_null_mr", PTR), m("read_counters", PTR),
            m("attach_counters_point_flow", PTR), m("create_counters", PTR), m("destroy_counters", PTR),
            m("reg_dm_mr", PTR), m("alloc_dm", PTR), m("free_dm", PTR), m("modify_flow_action_esp", PTR),
            m("destroy_flow_action", PTR), m("create_flow_action_esp", PTR), m("modify_qp_rate_limit", PTR),
            m("alloc_parent_domain", PTR), m("dealloc_td", PTR), m("alloc_td", PTR), m("modify_cq", PTR),
            m("post_srq_ops", PTR), m("destroy_rwq_ind_table", PTR), m("create_rwq_ind_table", PTR),
            m("destroy_wq", PTR), m("modify_wq", PTR), m("create_wq", PTR), m("query_rt_values", PTR),
            m("create_cq_ex", PTR), m("priv", PTR), m("query_device_ex", PTR), m("ibv_destroy_flow", PTR),
            m("ABI_placeholder2", PTR), m("ibv_create_flow", PTR), m("ABI_placeholder1", PTR), m("open_qp", PTR),
            m("create_qp_ex", PTR), m("get_srq_num", PTR), m("create_srq_ex", PTR), m("open_xrcd", PTR),
            m("close_xrcd", PTR), m("_ABI_placeholder3", U64), m("sz", U64), IBV_CONTEXT.withName("context")));

    public static final StructLayout IBV_DEVICE_ATTR = complete("struct ibv_device_attr", struct("ibv_device_attr",
            opaque("fw_ver", 64, 1), m("node_guid", U64), m("sys_image_guid", U64), m("max_mr_size", U64),
            m("page_size_cap", U64), m("vendor_id", U32), m("vendor_part_id", U32), m("hw_ver", U32),
            m("max_qp", U32), m("max_qp_wr", U32), m("device_cap_flags", U32), m("max_sge", U32),
            m("max_sge_rd", U32), m("max_cq", U32), m("max_cqe", U32), m("max_mr", U32), m("max_pd", U32),
            m("max_qp_rd_atom", U32), m("max_ee_rd_atom", U32), m("max_res_rd_atom", U32),
            m("max_qp_init_rd_atom", U32), m("max_ee_init_rd_atom", U32), m("atomic_cap", U32), m("max_ee", U32),
            m("max_rdd", U32), m("max_mw", U32), m("max_raw_ipv6_qp", U32), m("max_raw_ethy_qp", U32),
            m("max_mcast_grp", U32), m("max_mcast_qp_attach", U32), m("max_total_mcast_qp_attach", U32),
            m("max_ah", U32), m("max_fmr", U32), m("max_map_per_fmr", U32), m("max_srq", U32),
            m("max_srq_wr", U32), m("max_srq_sge", U32), m("max_pkeys", U16), m("local_ca_ack_delay", U8),
            m("phys_port_cnt", U8)));

    public static final StructLayout IBV_PORT_ATTR = complete("struct ibv_port_attr", struct("ibv_port_attr",
            m("state", U32), m("max_mtu", U32), m("active_mtu", U32), m("gid_tbl_len", U32),
            m("port_cap_flags", U32), m("max_msg_sz", U32), m("bad_pkey_cntr", U32), m("qkey_viol_cntr", U32),
            m("pkey_tbl_len", U16), m("lid", U16), m("sm_lid", U16), m("lmc", U8), m("max_vl_num", U8),
            m("sm_sl", U8), m("subnet_timeout", U8), m("init_type_reply", U8), m("active_width", U8),
            m("active_speed", U8), m("phys_state", U8), m("link_layer", U8), m("flags", U8),
            m("port_cap_flags2", U16)));

    public static final StructLayout IBV_PD = complete("struct ibv_pd", struct("ibv_pd",
            m("context", PTR), m("handle", U32)));

    public static final StructLayout IBV_MR = complete("struct ibv_mr", struct("ibv_mr",
            m("context", PTR), m("pd", PTR), m("addr", PTR), m("length", U64), m("handle", U32), m("lkey", U32),
            m("rkey", U32)));

    public static final StructLayout IBV_COMP_CHANNEL = complete("struct ibv_comp_channel",
            struct("ibv_comp_channel", m("context", PTR), m("fd", U32), m("refcnt", U32)));

    public static final StructLayout IBV_CQ = complete("struct ibv_cq", struct("ibv_cq",
            m("context", PTR), m("channel", PTR), m("cq_context", PTR), m("handle", U32), m("cqe", U32),
            mutex("mutex"), cond("cond"), m("comp_events_completed", U32), m("async_events_completed", U32)));

    public static final StructLayout IBV_SRQ_ATTR = complete("struct ibv_srq_attr", struct("ibv_srq_attr",
            m("max_wr", U32), m("max_sge", U32), m("srq_limit", U32)));

    public static final StructLayout IBV_SRQ_INIT_ATTR = complete("struct ibv_srq_init_attr",
            struct("ibv_srq_init_attr", m("srq_context", PTR), IBV_SRQ_ATTR.withName("attr")));

    public static final StructLayout IBV_SRQ = complete("struct ibv_srq", struct("ibv_srq",
            m("context", PTR), m("srq_context", PTR), m("pd", PTR), m("handle", U32), mutex("mutex"), cond("cond"),
            m("events_completed", U32)));

    public static final StructLayout IBV_QP_CAP = struct("cap",
            m("max_send_wr", U32), m("max_recv_wr", U32), m("max_send_sge", U32), m("max_recv_sge", U32),
            m("max_inline_data", U32));

    public static final StructLayout IBV_QP_INIT_ATTR = complete("struct ibv_qp_init_attr",
            struct("ibv_qp_init_attr", m("qp_context", PTR), m("send_cq", PTR), m("recv_cq", PTR), m("srq", PTR),
                    IBV_QP_CAP, m("qp_type", U32), m("sq_sig_all", U32)));

    public static final StructLayout IBV_QP = complete("struct ibv_qp", struct("ibv_qp",
            m("context", PTR), m("qp_context", PTR), m("pd", PTR), m("send_cq", PTR), m("recv_cq", PTR),
            m("srq", PTR), m("handle", U32), m("qp_num", U32), m("state", U32), m("qp_type", U32),
            mutex("mutex"), cond("cond"), m("events_completed", U32)));

    public static final StructLayout IBV_GLOBAL_ROUTE = struct("grh",
            IBV_GID.withName("dgid"), m("flow_label", U32), m("sgid_index", U8), m("hop_limit", U8),
            m("traffic_class", U8));

    public static final StructLayout IBV_AH_ATTR = complete("struct ibv_ah_attr", struct("ibv_ah_attr",
            IBV_GLOBAL_ROUTE, m("dlid", U16), m("sl", U8), m("src_path_bits", U8), m("static_rate", U8),
            m("is_global", U8), m("port_num", U8)));

    public static final StructLayout IBV_QP_ATTR = complete("struct ibv_qp_attr", struct("ibv_qp_attr",
            m("qp_state", U32), m("cur_qp_state", U32), m("path_mtu", U32), m("path_mig_state", U32),
            m("qkey", U32), m("rq_psn", U32), m("sq_psn", U32), m("dest_qp_num", U32), m("qp_access_flags", U32),
            IBV_QP_CAP, IBV_AH_ATTR.withName("ah_attr"), IBV_AH_ATTR.withName("alt_ah_attr"),
            m("pkey_index", U16), m("alt_pkey_index", U16), m("en_sqd_async_notify", U8), m("sq_draining", U8),
            m("max_rd_atomic", U8), m("max_dest_rd_atomic", U8), m("min_rnr_timer", U8), m("port_num", U8),
            m("timeout", U8), m("retry_cnt", U8), m("rnr_retry", U8), m("alt_port_num", U8),
            m("alt_timeout", U8), m("rate_limit", U32)));

    public static final StructLayout IBV_AH = complete("struct ibv_ah", struct("ibv_ah",
            m("context", PTR), m("pd", PTR), m("handle", U32)));

    public static final StructLayout IBV_SGE = complete("struct ibv_sge", struct("ibv_sge",
            m("addr", U64), m("length", U32), m("lkey", U32)));

    /**
     * struct ibv_send_wr. The anonymous unions (imm_data, bind_mw/tso) are never used for UD
     * sends; they appear as padding and only the struct size checks them.
     */
    public static final StructLayout IBV_SEND_WR = complete("struct ibv_send_wr", struct("ibv_send_wr",
            m("wr_id", U64), m("next", PTR), m("sg_list", PTR), m("num_sge", U32), m("opcode", U32),
            m("send_flags", U32), opaque("$imm_data", 4, 4),
            union("wr",
                    struct("ud", m("ah", PTR), m("remote_qpn", U32), m("remote_qkey", U32)),
                    struct("atomic", m("remote_addr", U64), m("compare_add", U64), m("swap", U64), m("rkey", U32))),
            union("qp_type", struct("xrc", m("remote_srqn", U32))),
            opaque("$bind_mw_tso", 48, 8)));

    public static final StructLayout IBV_RECV_WR = complete("struct ibv_recv_wr", struct("ibv_recv_wr",
            m("wr_id", U64), m("next", PTR), m("sg_list", PTR), m("num_sge", U32)));

    /** struct ibv_wc; the anonymous imm_data/invalidated_rkey union is padding here. */
    public static final StructLayout IBV_WC = complete("struct ibv_wc", struct("ibv_wc",
            m("wr_id", U64), m("status", U32), m("opcode", U32), m("vendor_err", U32), m("byte_len", U32),
            opaque("$imm_data", 4, 4), m("qp_num", U32), m("src_qp", U32), m("wc_flags", U32),
            m("pkey_index", U16), m("slid", U16), m("sl", U8), m("dlid_path_bits", U8)));

    public static final StructLayout IBV_ASYNC_EVENT = complete("struct ibv_async_event", struct("ibv_async_event",
            union("element", m("cq", PTR), m("qp", PTR), m("srq", PTR), m("wq", PTR), m("port_num", U32)),
            m("event_type", U32)));

    // ---- umad.h -------------------------------------------------------------------------

    /** UMAD_CA_NAME_LEN. */
    public static final int UMAD_CA_NAME_LEN = 20;

    public static final StructLayout UMAD_PORT = complete("umad_port_t", struct("umad_port",
            opaque("ca_name", UMAD_CA_NAME_LEN, 1), m("portnum", U32), m("base_lid", U32), m("lmc", U32),
            m("sm_lid", U32), m("sm_sl", U32), m("state", U32), m("phys_state", U32), m("rate", U32),
            m("capmask", U32), m("gid_prefix", U64), m("port_guid", U64), m("pkeys_size", U32), m("pkeys", PTR),
            opaque("link_layer", UMAD_CA_NAME_LEN, 1)));

    /** ib_mad_addr_t: its gid union is packed and 4-aligned, so it is opaque here. */
    public static final StructLayout IB_MAD_ADDR = complete("ib_mad_addr_t", struct("addr",
            m("qpn", U32), m("qkey", U32), m("lid", U16), m("sl", U8), m("path_bits", U8), m("grh_present", U8),
            m("gid_index", U8), m("hop_limit", U8), m("traffic_class", U8), opaque("gid", 16, 1),
            m("flow_label", U32), m("pkey_index", U16), opaque("reserved", 6, 1)));

    /** ib_user_mad_t: the header before the MAD; its size is where the MAD data begins. */
    public static final StructLayout IB_USER_MAD = complete("ib_user_mad_t", struct("ib_user_mad",
            m("agent_id", U32), m("status", U32), m("timeout_ms", U32), m("retries", U32), m("length", U32),
            IB_MAD_ADDR));

    // ---- poll.h -------------------------------------------------------------------------

    public static final StructLayout POLLFD = complete("struct pollfd", struct("pollfd",
            m("fd", U32), m("events", U16), m("revents", U16)));

    /** Every struct, by C type name; each size must equal the C sizeof. */
    public static Map<String, StructLayout> complete() {
        return Collections.unmodifiableMap(COMPLETE);
    }

    /** A VarHandle of a member path (dotted, e.g. {@code wr.ud.ah}), with coordinates (segment, 0L). */
    public static VarHandle field(MemoryLayout layout, String path) {
        return layout.varHandle(path(path));
    }

    /** The byte offset of a member path. */
    public static long offset(MemoryLayout layout, String path) {
        return layout.byteOffset(path(path));
    }

    private static PathElement[] path(String dotted) {
        String[] parts = dotted.split("\\.");
        PathElement[] elements = new PathElement[parts.length];
        for (int i = 0; i < parts.length; i++) {
            elements[i] = PathElement.groupElement(parts[i]);
        }
        return elements;
    }
}
