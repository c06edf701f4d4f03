package ipoib.verbs.loopback.subnet;

/**
 * The subnet's management plane as ibsim's clients see it: a client attaches at a node and
 * then sends and receives MADs there (ibsim's {@code sim_ctl_new_client}, ibsim/ibsim.c).
 */
public interface ManagementPlane {
    /**
     * SIM_CTL_CONNECT: attaches a client at the node named {@code nodeId} (a node name or GUID;
     * empty: the default node, as ibsim's {@code default_port}).
     *
     * @param isSm whether the client is a subnet manager ({@code sim_client_info.issm})
     * @param receiver where the MADs for this client go
     * @throws IllegalArgumentException naming why the attachment is refused (an unknown node)
     */
    Attachment attach(String nodeId, boolean isSm, MadReceiver receiver);
}
