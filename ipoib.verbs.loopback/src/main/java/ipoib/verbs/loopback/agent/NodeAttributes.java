package ipoib.verbs.loopback.agent;

import ipoib.codec.smp.NodeDescription;
import ipoib.codec.smp.NodeInfo;
import ipoib.codec.smp.Smp;
import ipoib.codec.smp.SmpTables;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import java.lang.foreign.MemorySegment;

/**
 * The read-only identity attributes of a node: NodeInfo (IBA 14.2.5.3), NodeDescription
 * (14.2.5.2) and GUIDInfo (14.2.5.5), as ibsim/sim_mad.c do_nodeinfo, do_nodedesc and do_guidinfo
 * answer them. A Set is refused as an unsupported method/attribute combination.
 */
final class NodeAttributes {
    private NodeAttributes() {
    }

    /** The NodeInfo the node answers through port {@code at}: PortGUID and LocalPortNum are the arrival port's. */
    static NodeInfo nodeInfo(Port at) {
        Node n = at.node();
        int partitionCap = n.isSwitch() ? Node.SWITCH_PARTITION_CAP : at.pkeyEntries();
        return new NodeInfo(1, 1, n.type().code(), n.portCount(), n.systemImageGuid(), n.nodeGuid(), at.guid(),
                partitionCap, n.deviceId(), n.revision(), at.number(), n.vendorId());
    }

    static int nodeInfo(Port at, int method, int modifier, MemorySegment data) {
        clear(data);
        nodeInfo(at).encode(data, 0);
        return method == Smp.METHOD_GET ? 0 : Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
    }

    static int nodeDescription(Port at, int method, int modifier, MemorySegment data) {
        NodeDescription.encode(at.node().description(), data, 0);
        return method == Smp.METHOD_GET ? 0 : Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
    }

    /** Block 0 holds the port's GUID at index 0; other blocks are empty (no alias GUIDs), as ibsim answers. */
    static int guidInfo(Port at, int method, int modifier, MemorySegment data) {
        clear(data);
        if (modifier == 0) {
            SmpTables.setGuid(data, 0, 0, at.guid());
        }
        return method == Smp.METHOD_GET ? 0 : Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
    }

    static void clear(MemorySegment data) {
        data.asSlice(0, Smp.DATA_LENGTH).fill((byte) 0);
    }
}
