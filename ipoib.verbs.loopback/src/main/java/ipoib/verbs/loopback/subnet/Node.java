package ipoib.verbs.loopback.subnet;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * A node of the subnet: an HCA with ports 1..N or a switch with management port 0 and ports 1..N
 * (ibsim/sim.h {@code struct Node}; NodeInfo, IBA 14.2.5.3). Identity (name, GUIDs, ids) is fixed;
 * the description is what NodeDescription reports.
 */
public final class Node {
    /** NodeInfo.PartitionCap of a switch (its port 0's P_Key table), as ibsim's swnodeinfo template. */
    public static final int SWITCH_PARTITION_CAP = 8;

    private final NodeType type;
    private final String name;
    private final String description;
    private final long nodeGuid;
    private final long systemImageGuid;
    private final int vendorId;
    private final int deviceId;
    private final int revision;
    private final List<Port> ports;
    private final SwitchTables tables;

    /**
     * A node and its ports. Port GUIDs follow ibsim (sim_net.c init_ports): an HCA's port p has
     * the GUID {@code portGuids[p-1]}; a switch's ports all have the node GUID.
     *
     * @param portCount the number of cabled ports (1..254)
     * @param portGuids for an HCA the GUID of each port 1..portCount; ignored for a switch
     */
    Node(NodeType type, String name, String description, long nodeGuid, long systemImageGuid, int vendorId,
            int deviceId, int revision, int portCount, long[] portGuids) {
        this.type = type;
        this.name = name;
        this.description = description;
        this.nodeGuid = nodeGuid;
        this.systemImageGuid = systemImageGuid;
        this.vendorId = vendorId;
        this.deviceId = deviceId;
        this.revision = revision;
        List<Port> p = new ArrayList<>(portCount + 1);
        if (type == NodeType.SWITCH) {
            p.add(new Port(this, 0, nodeGuid, SWITCH_PARTITION_CAP, Port.SWITCH_PORT0_CAPABILITIES));
            for (int i = 1; i <= portCount; i++) {
                p.add(new Port(this, i, nodeGuid, Port.SWITCH_PKEY_ENTRIES, 0));
            }
            this.tables = new SwitchTables(portCount);
        } else {
            p.add(null);
            for (int i = 1; i <= portCount; i++) {
                p.add(new Port(this, i, portGuids[i - 1], Port.HCA_PKEY_ENTRIES, Port.HCA_CAPABILITIES));
            }
            this.tables = null;
        }
        this.ports = Collections.unmodifiableList(p);
    }

    public NodeType type() {
        return type;
    }

    /** The node id of the net file ("Switch1", "H-0002c903000010f0"): unique in the topology. */
    public String name() {
        return name;
    }

    /** NodeDescription (at most 64 octets of UTF-8). */
    public String description() {
        return description;
    }

    public long nodeGuid() {
        return nodeGuid;
    }

    public long systemImageGuid() {
        return systemImageGuid;
    }

    /** NodeInfo.VendorID (24 bits). */
    public int vendorId() {
        return vendorId;
    }

    /** NodeInfo.DeviceID (16 bits). */
    public int deviceId() {
        return deviceId;
    }

    /** NodeInfo.Revision. */
    public int revision() {
        return revision;
    }

    /** NodeInfo.NumPorts: the cabled ports, not counting a switch's port 0. */
    public int portCount() {
        return ports.size() - 1;
    }

    /** The port with this number (0..N on a switch, 1..N on an HCA), or null. */
    public Port port(int number) {
        return number >= 0 && number < ports.size() ? ports.get(number) : null;
    }

    /** The ports in number order: a switch's from 0, an HCA's from 1. */
    public List<Port> ports() {
        return type == NodeType.SWITCH ? ports : ports.subList(1, ports.size());
    }

    /** The forwarding tables of a switch, null for an HCA. */
    public SwitchTables tables() {
        return tables;
    }

    public boolean isSwitch() {
        return type == NodeType.SWITCH;
    }

    @Override
    public String toString() {
        return type.netFileKeyword() + " \"" + name + "\"";
    }
}
