package ipoib.verbs.loopback.subnet;

/** One client attached to the {@link ManagementPlane} at a node's port. */
public interface Attachment extends AutoCloseable {
    /** The node's name ({@code sim_client_info.nodeid} of the CONNECT answer). */
    String nodeName();

    /** The port the client is attached at (0 for a switch's management port). */
    int portNumber();

    /** SIM_CTL_GET_NODEINFO: the node's NodeInfo attribute, as on the wire (64 octets). */
    byte[] nodeInfo();

    /** SIM_CTL_GET_PORTINFO: the PortInfo attribute of {@code port} (0: the attached port), as on the wire. */
    byte[] portInfo(int port);

    /** SIM_CTL_GET_PKEYS: the attached port's P_Key table, big-endian entries. */
    byte[] pkeys();

    /** SIM_CTL_GET_VENDOR: {@code struct sim_vendor} as ibsim answers it. */
    byte[] vendor();

    /** SIM_CTL_SET_ISSM: whether the client is a subnet manager. */
    void setSm(boolean isSm);

    /** A MAD from this client ({@code struct sim_request}: dlid, slid 0 for "this port's LID", dqp, sqp). */
    void send(int dlid, int slid, int dqp, int sqp, byte[] mad, int length);

    /** SIM_CTL_DISCONNECT, or the client vanished. */
    @Override
    void close();
}
