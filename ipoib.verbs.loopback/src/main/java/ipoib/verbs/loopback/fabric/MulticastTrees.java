package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.SwitchTables;
import ipoib.verbs.loopback.subnet.Topology;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The emulated SM's multicast routing: for each group a spanning tree of the switches that lead
 * to its members, programmed into the switches' multicast forwarding tables (MLID → port mask), as
 * OpenSM does (opensm/osm_mcast_mgr.c {@code mcast_mgr_build_spanning_tree},
 * {@code mcast_mgr_branch}). The tree reaches every member's switch, so that a sender's packets
 * enter it; a switch forwards out to a member HCA port only when the member receives (FullMember
 * or NonMember, not SendOnly).
 */
final class MulticastTrees {
    private final Topology topology;
    private final SubnetManager subnetManager;

    MulticastTrees(Topology topology, SubnetManager subnetManager) {
        this.topology = topology;
        this.subnetManager = subnetManager;
    }

    /** Programs every group's tree (after the topology changed). */
    void programAll() {
        for (MulticastGroup g : subnetManager.groups()) {
            program(g);
        }
    }

    /** Programs one group's tree in every switch, replacing what was there. */
    void program(MulticastGroup group) {
        int mlid = group.mlid;
        topology.lock().lock();
        try {
            clear(mlid);
            Map<Node, Integer> memberSwitches = new HashMap<>();
            Set<Port> receivingPorts = new HashSet<>();
            for (Map.Entry<Gid, Integer> m : group.members().entrySet()) {
                LoopPort port = subnetManager.portByGid(m.getKey());
                if (port == null) {
                    continue;
                }
                Port hca = port.model;
                Port peer = hca.peer();
                if (peer == null || !hca.linkUp() || !peer.node().isSwitch()) {
                    continue;
                }
                memberSwitches.merge(peer.node(), 1, Integer::sum);
                if (group.receives(m.getKey())) {
                    receivingPorts.add(peer);
                }
            }
            if (memberSwitches.isEmpty()) {
                return;
            }
            Node root = memberSwitches.keySet().iterator().next();
            Map<Node, Port> parentPort = spanningTree(root);
            // Keep the branches that lead to a member switch: walk up from each to the root.
            for (Node sw : memberSwitches.keySet()) {
                Node at = sw;
                while (at != root && parentPort.containsKey(at)) {
                    Port up = parentPort.get(at);
                    if (forwards(mlid, up)) {
                        break; // this branch is already in the tree
                    }
                    set(mlid, up);
                    set(mlid, up.peer());
                    at = up.peer().node();
                }
            }
            for (Port p : receivingPorts) {
                set(mlid, p);
            }
        } finally {
            topology.lock().unlock();
        }
    }

    /** Forgets a deleted group's tree. */
    void remove(int mlid) {
        topology.lock().lock();
        try {
            clear(mlid);
        } finally {
            topology.lock().unlock();
        }
    }

    /** A breadth-first tree from the root over links that are up: each switch's port towards its parent. */
    private static Map<Node, Port> spanningTree(Node root) {
        Map<Node, Port> parentPort = new HashMap<>();
        Set<Node> seen = new HashSet<>(List.of(root));
        ArrayDeque<Node> queue = new ArrayDeque<>(List.of(root));
        while (!queue.isEmpty()) {
            Node sw = queue.poll();
            for (Port p : sw.ports()) {
                Port peer = p.peer();
                if (p.number() == 0 || peer == null || !p.linkUp() || !peer.node().isSwitch()
                        || !seen.add(peer.node())) {
                    continue;
                }
                parentPort.put(peer.node(), peer);
                queue.add(peer.node());
            }
        }
        return parentPort;
    }

    private void clear(int mlid) {
        for (Node n : topology.nodes()) {
            if (n.isSwitch()) {
                for (int position = 0; position < n.tables().positions(); position++) {
                    n.tables().setMulticastMask(mlid, position, 0);
                }
            }
        }
    }

    private static boolean forwards(int mlid, Port port) {
        return port.node().tables().multicastForwards(mlid, port.number());
    }

    private static void set(int mlid, Port port) {
        SwitchTables t = port.node().tables();
        int position = port.number() / 16;
        t.setMulticastMask(mlid, position, t.multicastMask(mlid, position) | 1 << port.number() % 16);
    }
}
