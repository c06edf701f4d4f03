package ipoib.verbs.loopback.subnet;

import java.util.List;

/**
 * The loopback fabric's default subnet: N HCAs, every port of each cabled to its own port of one
 * switch, in order (HCA 0 port 1 to switch port 1, HCA 0 port 2 to switch port 2, ...). The
 * caller gives the GUIDs, so that the loopback keeps the GUIDs it has always had.
 */
public final class SingleSwitchTopology {
    /** The switch's node name (and description). */
    public static final String SWITCH_NAME = "loopswitch";

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
