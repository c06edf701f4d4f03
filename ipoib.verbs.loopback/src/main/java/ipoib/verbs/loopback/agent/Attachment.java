package ipoib.verbs.loopback.agent;

/**
 * One attached client (ibsim/ibsim.c {@code Client}): the answers to its {@code SIM_CTL_GET_*}
 * requests and the MADs it sends. Byte arrays are the octets ibsim puts in {@code sim_ctl.data}
 * (64 octets, big-endian IBA layouts); the caller owns the returned arrays.
 */
public interface Attachment extends AutoCloseable {
    /** {@code sim_ctl.clientid}: 0..{@link ManagementPlane#MAX_CLIENTS}-1; ibsim also puts it in octets 0-1 of a request's TID. */
    int clientId();

    /** {@code sim_client_info.nodeid} in the CONNECT answer: the node's name. */
    String nodeName();

    /** The attached port's number (0 on a switch, 1 on an HCA). */
    int portNumber();

    /** {@code SIM_CTL_GET_PORT} ({@code struct sim_port}): the port's base LID. */
    int lid();

    /** {@code SIM_CTL_GET_PORT} ({@code struct sim_port}): the port's PortState code. */
    int portState();

    /** {@code SIM_CTL_GET_GUID}: the node GUID (ibsim answers the node GUID, not the port GUID). */
    long nodeGuid();

    /** {@code SIM_CTL_GET_GID}: the port's GidPrefix; ibsim completes the GID with {@link #nodeGuid()}. */
    long gidPrefix();

    /** {@code SIM_CTL_GET_NODEINFO}: NodeInfo (IBA 14.2.5.3) in 64 octets, LocalPortNum as ibsim keeps it. */
    byte[] nodeInfo();

    /**
     * {@code SIM_CTL_GET_PORTINFO}: PortInfo (IBA 14.2.5.6) in 64 octets of the node's port
     * {@code port}, or of the attached port when {@code port} is 0 or above NumPorts
     * (ibsim/ibsim.c sim_ctl_get_portinfo).
     */
    byte[] portInfo(int port);

    /** {@code SIM_CTL_GET_PKEYS}: the attached port's first 32 P_Keys, big-endian, zero-padded to 64 octets. */
    byte[] pkeys();

    /** {@code SIM_CTL_GET_VENDOR} ({@code struct sim_vendor}): NodeInfo.VendorID. */
    int vendorId();

    /** {@code SIM_CTL_GET_VENDOR}: NodeInfo.DeviceID as vendor_part_id. */
    int vendorPartId();

    /** {@code SIM_CTL_GET_VENDOR}: NodeInfo.Revision as hw_ver. */
    int hardwareVersion();

    /** {@code SIM_CTL_GET_VENDOR}: fw_ver; ibsim answers 1. */
    long firmwareVersion();

    /** {@code SIM_CTL_SET_ISSM}: the client becomes or stops being the node's SM (PortInfo.IsSM, trap 144). */
    void setSm(boolean isSm);

    /**
     * A {@code struct sim_request} from this client: routes the MAD (directed route by its path,
     * otherwise by {@code dlid} through the switches' LFTs), lets the destination's agent answer
     * or hands it to the client attached there, and delivers any answer to the
     * {@link MadReceiver}s, possibly before this method returns.
     *
     * @param dlid destination LID; ignored for a directed-route SMP
     * @param slid source LID; 0 means the attached port's LID (ibsim/sim_mad.c decode_sim_MAD)
     * @param mad the MAD octets (copied before this returns)
     * @param length octets of {@code mad} that are the MAD (at most 256)
     */
    void send(int dlid, int slid, int dqp, int sqp, byte[] mad, int length);

    /** {@code SIM_CTL_DISCONNECT}: detaches; an SM's IsSM bit is cleared. Idempotent. */
    @Override
    void close();
}
