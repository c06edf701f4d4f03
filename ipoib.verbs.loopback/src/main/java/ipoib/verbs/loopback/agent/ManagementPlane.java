package ipoib.verbs.loopback.agent;

/**
 * The subnet's management plane as ibsim's clients see it (include/ibsim.h, ibsim/ibsim.c): a
 * client (OpenSM, an infiniband-diags tool, an appliance port's SA client) attaches at a node and
 * sends and receives MADs there. Thread-safe.
 */
public interface ManagementPlane {
    /** ibsim's client limit (include/ibsim.h IBSIM_MAX_CLIENTS). */
    int MAX_CLIENTS = 10;

    /**
     * {@code SIM_CTL_CONNECT}: attaches a client at a node's port: a switch's port 0, an HCA's
     * port 1 (ibsim/sim_net.c node_get_port(node, 0)).
     *
     * @param nodeId {@code sim_client_info.nodeid}: a node's name, its NodeDescription, or its node
     *        GUID as 0x-prefixed hexadecimal; empty for the default port (the first port of the net file)
     * @param isSm {@code sim_client_info.issm}: the client is a subnet manager (it receives the
     *        SMPs and SA MADs that arrive for QP0 and QP1 of the port, sets PortInfo.IsSM); one SM per node
     * @param receiver where this client's MADs go
     * @throws AttachRefusedException no such node, an SM already attached at that node, or
     *         {@link #MAX_CLIENTS} clients attached
     */
    Attachment attach(String nodeId, boolean isSm, MadReceiver receiver);
}
