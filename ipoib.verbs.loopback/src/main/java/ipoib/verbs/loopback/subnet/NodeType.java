package ipoib.verbs.loopback.subnet;

/** The kind of a node, with its NodeInfo.NodeType code (IBA 14.2.5.3). */
public enum NodeType {
    /** A channel adapter (ibsim's {@code Hca}/{@code Ca} record): ports 1..N, each with its own GUID. */
    HCA(1, "Hca"),
    /** A switch: port 0 is its management port, ports 1..N are cabled; one GUID for all. */
    SWITCH(2, "Switch");

    private final int code;
    private final String netFileKeyword;

    NodeType(int code, String netFileKeyword) {
        this.code = code;
        this.netFileKeyword = netFileKeyword;
    }

    /** NodeInfo.NodeType. */
    public int code() {
        return code;
    }

    /** The record keyword of ibsim's net file. */
    public String netFileKeyword() {
        return netFileKeyword;
    }
}
