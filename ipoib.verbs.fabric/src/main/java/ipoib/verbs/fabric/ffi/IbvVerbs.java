package ipoib.verbs.fabric.ffi;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.FunctionDescriptor;
import java.lang.invoke.MethodHandle;
import java.util.List;

/**
 * The exported functions of libibverbs that work on a device: open it, query it, create and
 * destroy its resources, wait for its events. Bound when the first device is opened
 * ({@link Ibv#verbs()}): each downcall handle costs the JVM code generation, which a machine
 * without RDMA devices never needs.
 *
 * <p>Handles created with errno capture take a capture segment ({@link Native#errnoSegment})
 * as their first argument: those functions return NULL or -1 and set errno.
 */
public final class IbvVerbs {
    /** The symbols bound here, checked when the library is loaded ({@link Ibv#load}). */
    static final List<String> SYMBOLS = List.of(
            "ibv_get_device_guid", "ibv_open_device", "ibv_close_device", "ibv_query_device", "ibv_query_port",
            "ibv_query_gid", "ibv_query_pkey", "ibv_alloc_pd", "ibv_dealloc_pd", "ibv_reg_mr", "ibv_dereg_mr",
            "ibv_create_comp_channel", "ibv_destroy_comp_channel", "ibv_create_cq", "ibv_destroy_cq",
            "ibv_get_cq_event", "ibv_ack_cq_events", "ibv_create_qp", "ibv_modify_qp", "ibv_destroy_qp",
            "ibv_create_srq", "ibv_destroy_srq", "ibv_create_ah", "ibv_destroy_ah", "ibv_attach_mcast",
            "ibv_detach_mcast", "ibv_get_async_event", "ibv_ack_async_event");

    public final MethodHandle getDeviceGuid;
    public final MethodHandle openDevice;
    public final MethodHandle closeDevice;
    public final MethodHandle queryDevice;
    /** The exported compat {@code ibv_query_port}: fills the compat prefix of ibv_port_attr. */
    public final MethodHandle queryPortCompat;
    public final MethodHandle queryGid;
    public final MethodHandle queryPkey;
    public final MethodHandle allocPd;
    public final MethodHandle deallocPd;
    public final MethodHandle regMr;
    public final MethodHandle deregMr;
    public final MethodHandle createCompChannel;
    public final MethodHandle destroyCompChannel;
    public final MethodHandle createCq;
    public final MethodHandle destroyCq;
    public final MethodHandle getCqEvent;
    public final MethodHandle ackCqEvents;
    public final MethodHandle createQp;
    public final MethodHandle modifyQp;
    public final MethodHandle destroyQp;
    public final MethodHandle createSrq;
    public final MethodHandle destroySrq;
    public final MethodHandle createAh;
    public final MethodHandle destroyAh;
    public final MethodHandle attachMcast;
    public final MethodHandle detachMcast;
    public final MethodHandle getAsyncEvent;
    public final MethodHandle ackAsyncEvent;

    private IbvVerbs(Native.Library lib) {
        getDeviceGuid = lib.function("ibv_get_device_guid", FunctionDescriptor.of(JAVA_LONG, ADDRESS), false);
        openDevice = lib.function("ibv_open_device", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        closeDevice = lib.function("ibv_close_device", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        queryDevice = lib.function("ibv_query_device", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), false);
        queryPortCompat = lib.function("ibv_query_port",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, ADDRESS), false);
        queryGid = lib.function("ibv_query_gid",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), false);
        queryPkey = lib.function("ibv_query_pkey",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_BYTE, JAVA_INT, ADDRESS), false);
        allocPd = lib.function("ibv_alloc_pd", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        deallocPd = lib.function("ibv_dealloc_pd", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        regMr = lib.function("ibv_reg_mr",
                FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, JAVA_INT), true);
        deregMr = lib.function("ibv_dereg_mr", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createCompChannel = lib.function("ibv_create_comp_channel", FunctionDescriptor.of(ADDRESS, ADDRESS), true);
        destroyCompChannel = lib.function("ibv_destroy_comp_channel",
                FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createCq = lib.function("ibv_create_cq",
                FunctionDescriptor.of(ADDRESS, ADDRESS, JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), true);
        destroyCq = lib.function("ibv_destroy_cq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        getCqEvent = lib.function("ibv_get_cq_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS), true);
        ackCqEvents = lib.function("ibv_ack_cq_events", FunctionDescriptor.ofVoid(ADDRESS, JAVA_INT), false);
        createQp = lib.function("ibv_create_qp", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        modifyQp = lib.function("ibv_modify_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT), false);
        destroyQp = lib.function("ibv_destroy_qp", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createSrq = lib.function("ibv_create_srq", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        destroySrq = lib.function("ibv_destroy_srq", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        createAh = lib.function("ibv_create_ah", FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS), true);
        destroyAh = lib.function("ibv_destroy_ah", FunctionDescriptor.of(JAVA_INT, ADDRESS), false);
        attachMcast = lib.function("ibv_attach_mcast",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT), false);
        detachMcast = lib.function("ibv_detach_mcast",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_SHORT), false);
        getAsyncEvent = lib.function("ibv_get_async_event",
                FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS), true);
        ackAsyncEvent = lib.function("ibv_ack_async_event", FunctionDescriptor.ofVoid(ADDRESS), false);
    }

    /** Binds every function of {@link #SYMBOLS} in {@code lib}. */
    static IbvVerbs bind(Native.Library lib) {
        return new IbvVerbs(lib);
    }
}
