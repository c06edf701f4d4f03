package ipoib.verbs.loopback.subnet;

import java.util.List;

/**
 * The loopback fabric's default subnet: N HCAs, every port of each cabled to its own port of one
 * switch, in order (HCA 0 port 1 to switch port 1, HCA 0 port 2 to switch port 2, ...). A switch
 * has at most {@value TopologyBuilder#MAX_PORTS} ports, so more HCA ports than that hang in order
 * off leaf switches of {@value #LEAF_PORTS} HCA ports each, every leaf cabled by its last port to
 * one port of that switch (a two-level tree, as a large subnet is built of edge switches). The
 * caller gives the GUIDs, so that the loopback keeps the GUIDs it has always had.
 */
public final class SingleSwitchTopology {
    /** The switch's node name (and description). */
    public static final String SWITCH_NAME = "loopswitch";
    /** HCA ports per leaf switch when the HCA ports do not fit on one switch. */
    public static final int LEAF_PORTS = 128;

    private SingleSwitchTopology() {
    }

    /** One HCA: its node name (as the verbs device name, "loop0"), node GUID and port GUIDs 1..N. */
    public record Hca(String name, long nodeGuid, long[] portGuids) {
    }

    /**
     * The topology, with 4x QDR enabled on every cable.
     *
     * @param switchGuid the switch's GUID: distinct from every HCA node and port GUID
     */
    public static Topology build(long switchGuid, List<Hca> hcas) {
        int ports = hcas.stream().mapToInt(h -> h.portGuids().length).sum();
        if (ports > TopologyBuilder.MAX_PORTS) {
            return tree(switchGuid, hcas, ports);
        }
        TopologyBuilder b = new TopologyBuilder().switchNode(SWITCH_NAME, switchGuid, Math.max(ports, 1), null);
        int next = 1;
        for (Hca h : hcas) {
            b.hca(h.name(), h.nodeGuid(), h.portGuids(), null);
            for (int p = 1; p <= h.portGuids().length; p++) {
                b.cable(h.name(), p, SWITCH_NAME, next);
                b.rates(h.name(), p, LinkRates.WIDTH_1X | LinkRates.WIDTH_4X, LinkRates.SPEED_ALL);
                b.rates(SWITCH_NAME, next, LinkRates.WIDTH_1X | LinkRates.WIDTH_4X, LinkRates.SPEED_ALL);
                next++;
            }
        }
        return b.build();
    }

    /**
     * HCA ports beyond one switch's: leaf {@code loopswitch-leafK} (K from 1, GUID switchGuid + K)
     * takes the next {@value #LEAF_PORTS} HCA ports in order on its ports 1..{@value #LEAF_PORTS}
     * and is cabled by port {@value #LEAF_PORTS} + 1 to port K of the switch.
     */
    private static Topology tree(long switchGuid, List<Hca> hcas, int ports) {
        int leaves = (ports + LEAF_PORTS - 1) / LEAF_PORTS;
        if (leaves > TopologyBuilder.MAX_PORTS) {
            throw new IllegalArgumentException(ports + " HCA ports: at most " + TopologyBuilder.MAX_PORTS * LEAF_PORTS
                    + " fit on the leaves of one switch");
        }
        int all = LinkRates.WIDTH_1X | LinkRates.WIDTH_4X;
        TopologyBuilder b = new TopologyBuilder().switchNode(SWITCH_NAME, switchGuid, leaves, null);
        for (int k = 1; k <= leaves; k++) {
            String leaf = SWITCH_NAME + "-leaf" + k;
            b.switchNode(leaf, switchGuid + k, LEAF_PORTS + 1, null);
            b.cable(leaf, LEAF_PORTS + 1, SWITCH_NAME, k);
            b.rates(leaf, LEAF_PORTS + 1, all, LinkRates.SPEED_ALL);
            b.rates(SWITCH_NAME, k, all, LinkRates.SPEED_ALL);
        }
        int next = 0;
        for (Hca h : hcas) {
            b.hca(h.name(), h.nodeGuid(), h.portGuids(), null);
            for (int p = 1; p <= h.portGuids().length; p++) {
                String leaf = SWITCH_NAME + "-leaf" + (next / LEAF_PORTS + 1);
                int leafPort = next % LEAF_PORTS + 1;
                b.cable(h.name(), p, leaf, leafPort);
                b.rates(h.name(), p, all, LinkRates.SPEED_ALL);
                b.rates(leaf, leafPort, all, LinkRates.SPEED_ALL);
                next++;
            }
        }
        return b.build();
    }

    /**
     * Today's loopback numbering (Fabric, FabricConfig): HCA i is "loop" + i with node GUID
     * base + (i+1) * 0x100 and port p GUID node + p; the switch takes base + 0x10, which no HCA
     * node or port uses.
     */
    public static Topology loopback(long nodeGuidBase, int hcaCount, int portsPerHca) {
        List<Hca> hcas = new java.util.ArrayList<>();
        for (int i = 0; i < hcaCount; i++) {
            long node = nodeGuidBase + (long) (i + 1) * 0x100;
            long[] ports = new long[portsPerHca];
            for (int p = 0; p < portsPerHca; p++) {
                ports[p] = node + p + 1;
            }
            hcas.add(new Hca("loop" + i, node, ports));
        }
        return build(nodeGuidBase + 0x10, hcas);
    }
}
