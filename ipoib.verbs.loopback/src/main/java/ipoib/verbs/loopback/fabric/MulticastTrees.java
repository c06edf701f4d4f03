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
        if (mlid - SwitchTables.FIRST_MLID >= SwitchTables.MULTICAST_CAP) {
            return;
        }
        topology.lock().lock();
        try {
            Map<Node, int[]> masks = new HashMap<>();
            computeMasks(group, masks);
            // Each mask word written once: packets in flight never see a cleared table.
            for (Node n : topology.nodes()) {
                if (n.isSwitch()) {
                    int[] words = masks.get(n);
                    for (int position = 0; position < n.tables().positions(); position++) {
                        n.tables().setMulticastMask(mlid, position, words == null ? 0 : words[position]);
                    }
                }
            }
        } finally {
            topology.lock().unlock();
        }
    }

    /** Computes a group's masks per switch. */
    private void computeMasks(MulticastGroup group, Map<Node, int[]> masks) {
        Set<Node> memberSwitches = new HashSet<>();
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
            memberSwitches.add(peer.node());
            if (group.receives(m.getKey())) {
                receivingPorts.add(peer);
            }
        }
        if (memberSwitches.isEmpty()) {
            return;
        }
        // Rooted at the member switch that comes first in the topology: the same tree every time.
        Node root = null;
        for (Node n : topology.nodes()) {
            if (memberSwitches.contains(n)) {
                root = n;
                break;
            }
        }
        Map<Node, Port> parentPort = spanningTree(root);
        // Keep the branches that lead to a member switch: walk up from each to the root.
        for (Node sw : memberSwitches) {
            Node at = sw;
            while (at != root && parentPort.containsKey(at)) {
                Port up = parentPort.get(at);
                if (forwards(masks, up)) {
                    break; // this branch is already in the tree
                }
                set(masks, up);
                set(masks, up.peer());
                at = up.peer().node();
            }
        }
        for (Port p : receivingPorts) {
            set(masks, p);
        }
    }

    /** Forgets a deleted group's tree. */
    void remove(int mlid) {
        if (mlid - SwitchTables.FIRST_MLID >= SwitchTables.MULTICAST_CAP) {
            return;
        }
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

    private static boolean forwards(Map<Node, int[]> masks, Port port) {
        int[] words = masks.get(port.node());
        return words != null && (words[port.number() / 16] & 1 << port.number() % 16) != 0;
    }

    private static void set(Map<Node, int[]> masks, Port port) {
        int[] words = masks.computeIfAbsent(port.node(), n -> new int[n.tables().positions()]);
        words[port.number() / 16] |= 1 << port.number() % 16;
    }
}
