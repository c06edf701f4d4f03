package ipoib.verbs.loopback.fabric;

import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.SwitchTables;
import ipoib.verbs.loopback.subnet.Topology;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The emulated SM's unicast routing, OpenSM's default engine (min-hop): every switch forwards each
 * LID out of a port on a shortest path to the port that answers it, and among equally short ports
 * the one that carries the fewest routes so far (opensm/osm_ucast_mgr.c
 * {@code osm_ucast_mgr_build_lid_matrices} for the hop counts, {@code ucast_mgr_process_port} and
 * opensm/osm_switch.c {@code osm_switch_recommend_path} for the choice). Only links that are up
 * count: a link that went down is routed around on the next run.
 */
final class MinHopRouting {
    private static final int UNREACHABLE = Integer.MAX_VALUE;

    private final Topology topology;

    MinHopRouting(Topology topology) {
        this.topology = topology;
    }

    /** Programs every switch's linear forwarding table and LinearFDBTop; the caller holds the topology lock. */
    void run() {
        List<Node> switches = new ArrayList<>();
        for (Node n : topology.nodes()) {
            if (n.isSwitch()) {
                switches.add(n);
            }
        }
        if (switches.isEmpty()) {
            return;
        }
        Map<Node, int[]> routesPerPort = new HashMap<>();
        Map<Node, byte[]> tables = new HashMap<>();
        int top = highestLid();
        for (Node sw : switches) {
            routesPerPort.put(sw, new int[sw.portCount() + 1]);
            byte[] lft = new byte[top + 1];
            java.util.Arrays.fill(lft, (byte) SwitchTables.NO_PORT);
            tables.put(sw, lft);
        }
        // Destinations in LID order, as OpenSM walks its port GUID table: each port's LIDs (2^LMC of them).
        for (int lid = 1; lid <= top; lid++) {
            Port target = topology.portByLid(lid);
            if (target == null) {
                continue;
            }
            Map<Node, Integer> hops = hopsTo(target);
            for (Node sw : switches) {
                Integer h = hops.get(sw);
                if (h == null) {
                    continue; // no path: the entry stays unprogrammed (packets are dropped there)
                }
                int port = h == 0 ? 0 : bestPort(sw, hops, h, target, routesPerPort.get(sw));
                if (port != SwitchTables.NO_PORT) {
                    tables.get(sw)[lid] = (byte) port;
                    routesPerPort.get(sw)[port]++;
                }
            }
        }
        // Each entry written once, and only if it changed: packets in flight never see a cleared table.
        for (Node sw : switches) {
            SwitchTables t = sw.tables();
            byte[] lft = tables.get(sw);
            for (int lid = 1; lid <= top; lid++) {
                if (t.linearEntry(lid) != (lft[lid] & 0xFF)) {
                    t.setLinearEntry(lid, lft[lid] & 0xFF);
                }
            }
            t.setLinearFdbTop(top);
        }
    }

    private int highestLid() {
        int top = 0;
        for (Node n : topology.nodes()) {
            for (Port p : n.ports()) {
                if (p.lid() != 0) {
                    top = Math.max(top, p.lid() + (1 << p.lmc()) - 1);
                }
            }
        }
        return Math.min(top, SwitchTables.LINEAR_CAP - 1);
    }

    /**
     * Hops from each switch to the target port: 0 for the switch that is the target (its port 0),
     * 1 for a switch cabled to the target HCA port, and so on over links that are up.
     */
    private static Map<Node, Integer> hopsTo(Port target) {
        Map<Node, Integer> hops = new HashMap<>();
        ArrayDeque<Node> queue = new ArrayDeque<>();
        if (target.isSwitchPort0()) {
            hops.put(target.node(), 0);
            queue.add(target.node());
        } else {
            Port peer = target.peer();
            if (peer == null || !target.linkUp() || !peer.node().isSwitch()) {
                return hops;
            }
            hops.put(peer.node(), 1);
            queue.add(peer.node());
        }
        while (!queue.isEmpty()) {
            Node sw = queue.poll();
            int h = hops.get(sw);
            for (Port p : sw.ports()) {
                Port peer = p.peer();
                if (p.number() == 0 || peer == null || !p.linkUp() || !peer.node().isSwitch()
                        || hops.containsKey(peer.node())) {
                    continue;
                }
                hops.put(peer.node(), h + 1);
                queue.add(peer.node());
            }
        }
        return hops;
    }

    /** Among the ports on a shortest path, the one carrying the fewest routes; the lowest number on a tie. */
    private static int bestPort(Node sw, Map<Node, Integer> hops, int h, Port target, int[] routes) {
        int best = SwitchTables.NO_PORT;
        for (Port p : sw.ports()) {
            Port peer = p.peer();
            if (p.number() == 0 || peer == null || !p.linkUp()) {
                continue;
            }
            boolean shortest = h == 1 ? peer == target
                    : peer.node().isSwitch() && Integer.valueOf(h - 1).equals(hops.get(peer.node()));
            if (shortest && (best == SwitchTables.NO_PORT || routes[p.number()] < routes[best])) {
                best = p.number();
            }
        }
        return best;
    }
}
