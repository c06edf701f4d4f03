package ipoib.verbs.loopback.subnet;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Builds a {@link Topology}: nodes with their GUIDs, then cables between their ports. Every
 * mistake is refused with an {@link IllegalArgumentException} naming the node, the port and what
 * is allowed. On {@link #build()} cabled ports are linked (Init, LinkUp, the common width and
 * speed), uncabled ports are Down/Polling and each switch's port 0 is Active (ibsim/sim_net.c
 * connect_ports).
 */
public final class TopologyBuilder {
    /** Ports per node: NodeInfo.NumPorts is 8 bits and port 255 is reserved (IBA 14.2.5.3). */
    public static final int MAX_PORTS = 254;

    private final Map<String, Node> nodes = new LinkedHashMap<>();
    private final Set<Long> guids = new HashSet<>();
    private final List<Link> links = new ArrayList<>();
    private final Map<Port, Port> cabled = new HashMap<>();

    /** Identity of a node beyond its GUIDs: NodeInfo's ids and the NodeDescription. */
    public record Identity(String description, long systemImageGuid, int vendorId, int deviceId, int revision) {
    }

    /** Adds an HCA whose port p (1..portGuids.length) has GUID portGuids[p-1]. */
    public TopologyBuilder hca(String name, long nodeGuid, long[] portGuids, Identity identity) {
        checkName(name);
        if (portGuids.length < 1 || portGuids.length > MAX_PORTS) {
            throw new IllegalArgumentException("Hca \"" + name + "\" has " + portGuids.length + " ports: allowed 1.."
                    + MAX_PORTS);
        }
        claim(name, nodeGuid);
        for (long g : portGuids) {
            if (g != nodeGuid) {
                claim(name, g);
            }
        }
        Identity id = identityOrDefault(name, nodeGuid, identity);
        nodes.put(name, new Node(NodeType.HCA, name, id.description(), nodeGuid, id.systemImageGuid(), id.vendorId(),
                id.deviceId(), id.revision(), portGuids.length, portGuids.clone()));
        return this;
    }

    /** Adds a switch with ports 0..portCount, all carrying its GUID. */
    public TopologyBuilder switchNode(String name, long guid, int portCount, Identity identity) {
        checkName(name);
        if (portCount < 1 || portCount > MAX_PORTS) {
            throw new IllegalArgumentException("Switch \"" + name + "\" has " + portCount + " ports: allowed 1.."
                    + MAX_PORTS);
        }
        claim(name, guid);
        Identity id = identityOrDefault(name, guid, identity);
        nodes.put(name, new Node(NodeType.SWITCH, name, id.description(), guid, id.systemImageGuid(), id.vendorId(),
                id.deviceId(), id.revision(), portCount, null));
        return this;
    }

    /** Cables two ports together. */
    public TopologyBuilder cable(String nodeA, int portA, String nodeB, int portB) {
        Port a = cablePort(nodeA, portA);
        Port b = cablePort(nodeB, portB);
        if (a == b) {
            throw new IllegalArgumentException("port " + portA + " of \"" + nodeA + "\" is cabled to itself");
        }
        for (Port p : new Port[] {a, b}) {
            Port other = cabled.get(p);
            if (other != null) {
                throw new IllegalArgumentException("port " + p.number() + " of \"" + p.node().name()
                        + "\" is already cabled to port " + other.number() + " of \"" + other.node().name()
                        + "\": a port has one cable");
            }
        }
        cabled.put(a, b);
        cabled.put(b, a);
        links.add(new Link(a, b));
        return this;
    }

    /**
     * The widths and speeds a port supports and enables ({@link LinkRates} masks; without a call,
     * 4x and SDR as ibsim's defaults, sim.h DEFAULT_LINKWIDTH and DEFAULT_LINKSPEED).
     */
    public TopologyBuilder rates(String node, int port, int widthEnabled, int speedEnabled) {
        Port p = cablePort(node, port);
        if (widthEnabled < 1 || widthEnabled > LinkRates.WIDTH_ALL) {
            throw new IllegalArgumentException("port " + port + " of \"" + node + "\": width mask " + widthEnabled
                    + " is not allowed: allowed 1..31 (1x=1, 4x=2, 8x=4, 12x=8, 2x=16)");
        }
        if (speedEnabled < 1 || speedEnabled > LinkRates.SPEED_ALL) {
            throw new IllegalArgumentException("port " + port + " of \"" + node + "\": speed mask " + speedEnabled
                    + " is not allowed: allowed 1..7 (SDR=1, DDR=2, QDR=4)");
        }
        p.setLinkWidthEnabled(widthEnabled);
        p.setLinkSpeedEnabled(speedEnabled);
        return this;
    }

    /** Whether a node of this name was added. */
    public boolean has(String name) {
        return nodes.containsKey(name);
    }

    /** Links the cabled ports and returns the topology. */
    public Topology build() {
        if (nodes.isEmpty()) {
            throw new IllegalArgumentException("a topology needs at least one node");
        }
        for (Node n : nodes.values()) {
            for (Port p : n.ports()) {
                // The file describes the hardware: a port supports what it enables, so an SM's Set of
                // LinkSpeedEnabled 15 ("all supported", IBA 14.2.5.6) keeps the file's rate, as on ibsim.
                p.setLinkWidthSupported(p.linkWidthEnabled());
                p.setLinkSpeedSupported(p.linkSpeedEnabled());
                Port peer = cabled.get(p);
                if (p.isSwitchPort0()) {
                    p.setPhysicalState(PhysicalState.LINK_UP);
                    p.setState(PortState.ACTIVE);
                } else if (peer == null) {
                    p.setPhysicalState(PhysicalState.POLLING);
                    p.setState(PortState.DOWN);
                } else {
                    if (LinkRates.activeWidth(p.linkWidthEnabled(), peer.linkWidthEnabled()) == 0
                            || LinkRates.activeSpeed(p.linkSpeedEnabled(), peer.linkSpeedEnabled()) == 0) {
                        throw new IllegalArgumentException("cable " + p + " - " + peer
                                + ": the two ends enable no common width or speed");
                    }
                    p.setPeer(peer);
                    p.setLinkUp(true);
                    p.setLinkWidthActive(LinkRates.activeWidth(p.linkWidthEnabled(), peer.linkWidthEnabled()));
                    p.setLinkSpeedActive(LinkRates.activeSpeed(p.linkSpeedEnabled(), peer.linkSpeedEnabled()));
                    p.setPhysicalState(PhysicalState.LINK_UP);
                    p.setState(PortState.INIT);
                }
            }
        }
        return new Topology(new ArrayList<>(nodes.values()), links);
    }

    private Port cablePort(String nodeName, int number) {
        Node n = nodes.get(nodeName);
        if (n == null) {
            throw new IllegalArgumentException("no node \"" + nodeName + "\": nodes are " + nodes.keySet());
        }
        if (number < 1 || number > n.portCount()) {
            throw new IllegalArgumentException("port " + number + " of " + n + ": allowed 1.."
                    + n.portCount() + (n.isSwitch() ? " (port 0 is the switch's management port, never cabled)" : ""));
        }
        return n.port(number);
    }

    private void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > 64 || name.indexOf('"') >= 0) {
            throw new IllegalArgumentException("node name \"" + name + "\": allowed 1..64 characters without '\"'");
        }
        if (nodes.containsKey(name)) {
            throw new IllegalArgumentException("node \"" + name + "\" is defined twice: node names are unique");
        }
    }

    private void claim(String name, long guid) {
        if (guid == 0) {
            throw new IllegalArgumentException("node \"" + name + "\": GUID 0 is not allowed");
        }
        if (!guids.add(guid)) {
            throw new IllegalArgumentException(String.format(
                    "node \"%s\": GUID 0x%016x is already used by another node or port: GUIDs are unique", name, guid));
        }
    }

    private static Identity identityOrDefault(String name, long guid, Identity identity) {
        if (identity != null) {
            return identity;
        }
        return new Identity(name, guid, 0, 0, 0);
    }
}
