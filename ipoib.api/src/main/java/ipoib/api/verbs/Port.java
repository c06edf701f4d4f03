package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Gid;
import ipoib.api.sa.MadTransport;
import ipoib.api.sa.SubnetAdministrator;
import java.util.function.Consumer;

/**
 * A port of a {@link Device}: its attributes, GID and P_Key tables, events, and the factories of
 * the resources a UD consumer needs.
 */
@ProviderType
public interface Port {

    /** The device this port belongs to. */
    Device device();

    /** The port number, from 1. */
    int number();

    /** A snapshot of the attributes. */
    PortAttributes attributes();

    /**
     * The GID at that index; index 0 is subnet prefix + port GUID.
     *
     * @throws VerbsException for an index outside the table
     */
    Gid gid(int index);

    /** A snapshot of the P_Key table. */
    PKeyTable pkeyTable();

    /**
     * Subscribes to the port's events. The listener runs on a provider thread, must not block,
     * and must not throw (what it throws is logged and ignored).
     *
     * @return a handle that ends the subscription when closed
     */
    AutoCloseable addEventListener(Consumer<PortEvent> listener);

    /**
     * Creates a completion queue.
     *
     * @param capacity completions it can hold, 1..65536
     * @throws VerbsException when the provider cannot create it
     */
    CompletionQueue createCompletionQueue(int capacity);

    /**
     * Creates a completion queue that the caller polls from one thread at a time (one thread
     * polls it, or the callers serialise their polls and waits themselves), so that the provider
     * may leave out its own poll lock: the {@code IBV_CREATE_CQ_ATTR_SINGLE_THREADED} flag of
     * {@code ibv_create_cq_ex} (rdma-core {@code verbs.h}). A provider may ignore the hint; the
     * default does.
     *
     * @param capacity       completions it can hold, 1..65536
     * @param singleThreaded whether the caller serialises every poll and wait
     * @throws VerbsException when the provider cannot create it
     * @since 1.2
     */
    default CompletionQueue createCompletionQueue(int capacity, boolean singleThreaded) {
        return createCompletionQueue(capacity);
    }

    /**
     * Creates a UD queue pair and brings it to ready-to-send (INIT, RTR, RTS) with the
     * configuration's P_Key index, Q_Key and port.
     *
     * @throws VerbsException when the port is not active, the P_Key is not in the table, or a
     *                        resource is exhausted
     */
    UdQueuePair createUdQueuePair(UdQueuePairConfig config);

    /**
     * Datagrams this port received but dropped because their Q_Key was not the receiving queue
     * pair's (IBA 10.2.4; the PortInfo Q_KeyViolations counter, verbs' {@code qkey_viol_cntr}).
     * The drop happens below any interface, so the shell shows it per port.
     *
     * @return the count, or -1 when the provider does not count them
     */
    default long qkeyViolations() {
        return -1;
    }

    /**
     * Datagrams this port received for a UD queue pair that had no receive buffer posted, and
     * dropped (an unreliable datagram has no receiver-not-ready retry: the HCA drops it; mlx5
     * counts it as {@code out_of_buffer} in the port's {@code hw_counters}). The drop happens
     * below any interface, so the shell shows it per port.
     *
     * @return the count, or -1 when the provider does not count them
     * @since 1.3
     */
    default long receiveBufferDrops() {
        return -1;
    }

    /**
     * Whether connected mode can run on this port: reliable-connected queue pairs, a shared receive
     * queue, and a communication manager that can send and receive the CM class (0x07) MADs of
     * the port. Unavailable comes with the reason (e.g. the kernel's ib_cm owns the CM class), so
     * that a link asked for connected mode can say why it stays in datagram mode. It may probe the
     * port (the hardware provider registers a MAD agent to find out): call it when choosing a
     * mode, not per packet.
     *
     * @return available with a summary, or unavailable with the reason
     */
    default ProviderStatus connectedModeSupport() {
        return ProviderStatus.unavailable("device " + device().name() + " port " + number()
                + ": this provider does not offer reliable-connected queue pairs");
    }

    /**
     * Creates a reliable-connected queue pair in INIT.
     *
     * @throws VerbsException when the provider does not offer RC (the message says so), the port is
     *     not ACTIVE or the configuration does not fit the port
     */
    default RcQueuePair createRcQueuePair(RcQueuePairConfig config) {
        throw new VerbsException("device " + device().name() + " port " + number()
                + ": this provider does not offer reliable-connected queue pairs");
    }

    /**
     * Creates a shared receive queue for RC queue pairs of this port's device.
     *
     * @throws VerbsException when the provider does not offer shared receive queues
     */
    default SharedReceiveQueue createSharedReceiveQueue(int capacity) {
        throw new VerbsException("device " + device().name() + " port " + number()
                + ": this provider does not offer shared receive queues");
    }

    /**
     * The communication-management MADs of this port (connected mode's CM agent runs over them).
     *
     * @throws VerbsException when the provider cannot offer them (the message says why; on Linux
     *     hardware the kernel's {@code ib_cm} owns the CM class of every port)
     * @since 1.2
     */
    default CmTransport cmTransport() {
        throw new VerbsException("device " + device().name() + " port " + number()
                + ": this provider does not offer the communication-management class (CM MADs)");
    }

    /**
     * Creates an address handle for sending to a destination.
     *
     * @throws VerbsException when the vector is not usable on this port
     */
    AddressHandle createAddressHandle(AddressVector vector);

    /** The management-datagram transport to the subnet administrator of this port's subnet. */
    MadTransport madTransport();

    /** The subnet administrator client of this port, running over {@link #madTransport()}. */
    SubnetAdministrator subnetAdministrator();
}
