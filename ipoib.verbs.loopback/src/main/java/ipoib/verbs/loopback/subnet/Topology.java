package ipoib.verbs.loopback.subnet;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The subnet: its nodes, the cables between their ports, and every change to a port's management
 * state. Built by {@link TopologyBuilder} (or {@link NetFile}); the node set and the cabling are
 * fixed, links go down and up ({@link #setLinkUp}).
 *
 * <p>Every change goes through this class, with {@link #lock()} held, so that listeners (the data
 * path, the agents' traps) see each one in order. Lookups by name and GUID need no lock; the LID
 * table is read by the data path without locking.
 */
public final class Topology {
    private final List<Node> nodes;
    private final List<Link> links;
    private final Port defaultPort;
    private final Map<String, Node> byName = new HashMap<>();
    private final Map<String, Node> byDescription = new HashMap<>();
    private final Map<Long, Node> byNodeGuid = new HashMap<>();
    private final Map<Long, Port> byPortGuid = new HashMap<>();
    private final Port[] byLid = new Port[SwitchTables.LINEAR_CAP];
    private final ReentrantLock lock = new ReentrantLock();
    private final List<TopologyListener> listeners = new CopyOnWriteArrayList<>();

    Topology(List<Node> nodes, List<Link> links) {
        this.nodes = List.copyOf(nodes);
        this.links = List.copyOf(links);
        for (Node n : nodes) {
            byName.put(n.name(), n);
            byDescription.putIfAbsent(n.description(), n);
            byNodeGuid.put(n.nodeGuid(), n);
            for (Port p : n.ports()) {
                byPortGuid.putIfAbsent(p.guid(), p.lidPort());
            }
        }
        // ibsim/sim_net.c set_default_port: the first port of the file (a switch's port 0, an HCA's port 1).
        this.defaultPort = nodes.isEmpty() ? null : nodes.get(0).ports().get(0);
    }

    /** The nodes in the order they were defined. */
    public List<Node> nodes() {
        return nodes;
    }

    /** The cables, each once. */
    public List<Link> links() {
        return links;
    }

    /** The node with this name (the net file's node id), or null. */
    public Node node(String name) {
        return byName.get(name);
    }

    /** The first node with this NodeDescription, or null (ibsim/sim_net.c find_node_by_desc). */
    public Node nodeByDescription(String description) {
        return byDescription.get(description);
    }

    public Node nodeByGuid(long nodeGuid) {
        return byNodeGuid.get(nodeGuid);
    }

    /** The port with this GUID: an HCA port, or a switch's port 0. Null if none. */
    public Port portByGuid(long portGuid) {
        return byPortGuid.get(portGuid);
    }

    /** The port that answers this unicast LID (an HCA port or a switch's port 0), or null. */
    public Port portByLid(int lid) {
        return lid > 0 && lid < byLid.length ? byLid[lid] : null;
    }

    /** Where a client attaches when it names no node (ibsim's default port: the first of the file). */
    public Port defaultPort() {
        return defaultPort;
    }

    /** The management lock: hold it around reads that must be consistent and around every change. */
    public ReentrantLock lock() {
        return lock;
    }

    public void addListener(TopologyListener listener) {
        listeners.add(listener);
    }

    public void removeListener(TopologyListener listener) {
        listeners.remove(listener);
    }

    private void changed(Port port, PortChange change) {
        for (TopologyListener l : listeners) {
            l.portChanged(port, change);
        }
    }

    private void checkLocked() {
        if (!lock.isHeldByCurrentThread()) {
            throw new IllegalStateException("the topology's lock must be held to change a port");
        }
    }

    /**
     * Gives a port (an HCA port or a switch's port 0) its base LID and LMC; it answers
     * lid .. lid + 2^lmc - 1 from now on. A LID another port answered moves to this one.
     */
    public void assignLid(Port port, int lid, int lmc) {
        checkLocked();
        if (lid < 0 || lid >= SwitchTables.LINEAR_CAP || lmc < 0 || lmc > 7) {
            throw new IllegalArgumentException("LID " + lid + " LMC " + lmc + ": allowed LID 0..0xBFFF, LMC 0..7");
        }
        if (port.lid() == lid && port.lmc() == lmc) {
            return;
        }
        forgetLids(port);
        port.setLid(lid);
        port.setLmc(lmc);
        if (lid != 0) {
            int end = Math.min(lid + (1 << lmc), byLid.length);
            for (int l = lid; l < end; l++) {
                byLid[l] = port;
            }
        }
        changed(port, PortChange.LID);
    }

    private void forgetLids(Port port) {
        int lid = port.lid();
        if (lid == 0) {
            return;
        }
        int end = Math.min(lid + (1 << port.lmc()), byLid.length);
        for (int l = lid; l < end; l++) {
            if (byLid[l] == port) {
                byLid[l] = null;
            }
        }
    }

    /** Moves a port to a logical state (the agents apply {@link PortStateTransition} first). */
    public void setState(Port port, PortState state) {
        checkLocked();
        if (port.state() != state) {
            port.setState(state);
            changed(port, PortChange.STATE);
        }
    }

    /** Sets a port's physical state without touching the link (PortInfo Set of PortPhysicalState). */
    public void setPhysicalState(Port port, PhysicalState state) {
        checkLocked();
        if (port.physicalState() != state) {
            port.setPhysicalState(state);
            changed(port, PortChange.LINK);
        }
    }

    /**
     * Takes a cable down or brings it up, at both ends (ibsim/sim_net.c link_ports and reset_port):
     * up, both ports train to the widest and fastest common rate and enter Init with physical
     * state LinkUp; down, both go Down with physical state Polling and count LinkDowned. A port
     * without a cable, and a switch's port 0, refuse.
     */
    public void setLinkUp(Port port, boolean up) {
        checkLocked();
        Port peer = port.peer();
        if (peer == null) {
            throw new IllegalArgumentException("port " + port + " has no cable: only cabled ports go up and down");
        }
        if (port.linkUp() == up) {
            return;
        }
        for (Port p : new Port[] {port, peer}) {
            p.setLinkUp(up);
            if (up) {
                p.setLinkWidthActive(LinkRates.activeWidth(port.linkWidthEnabled(), peer.linkWidthEnabled()));
                p.setLinkSpeedActive(LinkRates.activeSpeed(port.linkSpeedEnabled(), peer.linkSpeedEnabled()));
                p.setPhysicalState(PhysicalState.LINK_UP);
                p.setState(PortState.INIT);
            } else {
                p.setPhysicalState(PhysicalState.POLLING);
                p.setState(PortState.DOWN);
                p.counters().increment(PortCounter.LINK_DOWNED);
            }
        }
        changed(port, PortChange.LINK);
        changed(peer, PortChange.LINK);
    }

    /**
     * Changes the widths and speeds a port enables (PortInfo Set of LinkWidthEnabled and
     * LinkSpeedEnabled); a trained link retrains both ends to the new common rate. Refuses a
     * mask that leaves the link no common width or speed.
     */
    public void setEnabledRates(Port port, int widthEnabled, int speedEnabled) {
        checkLocked();
        Port peer = port.peer();
        if (peer != null && (LinkRates.activeWidth(widthEnabled, peer.linkWidthEnabled()) == 0
                || LinkRates.activeSpeed(speedEnabled, peer.linkSpeedEnabled()) == 0)) {
            throw new IllegalArgumentException("port " + port + ": width mask " + widthEnabled + " and speed mask "
                    + speedEnabled + " share no rate with " + peer);
        }
        port.setLinkWidthEnabled(widthEnabled);
        port.setLinkSpeedEnabled(speedEnabled);
        if (peer != null) {
            int width = LinkRates.activeWidth(widthEnabled, peer.linkWidthEnabled());
            int speed = LinkRates.activeSpeed(speedEnabled, peer.linkSpeedEnabled());
            if (width != port.linkWidthActive() || speed != port.linkSpeedActive()) {
                for (Port p : new Port[] {port, peer}) {
                    p.setLinkWidthActive(width);
                    p.setLinkSpeedActive(speed);
                }
                changed(port, PortChange.RATE);
                changed(peer, PortChange.RATE);
            }
        }
    }

    /** Writes one P_Key table entry. */
    public void setPkey(Port port, int index, int pkey) {
        checkLocked();
        if (port.pkey(index) != (pkey & 0xFFFF)) {
            port.setPkey(index, pkey);
            changed(port, PortChange.PKEYS);
        }
    }

    /** Sets PortInfo's MasterSMLID, as an SM's PortInfo Set does. */
    public void setSmLid(Port port, int smLid) {
        checkLocked();
        if (port.smLid() != smLid) {
            port.setSmLid(smLid);
            changed(port, PortChange.SM_LID);
        }
    }

    /** The SM asked the clients of an HCA port to register again (PortInfo.ClientReregister set). */
    public void requestClientReregister(Port port) {
        checkLocked();
        changed(port, PortChange.CLIENT_REREGISTER);
    }

    /** Replaces a port's capability mask (an SM attaching sets IsSM, ibsim/ibsim.c set_issm). */
    public void setCapabilityMask(Port port, int mask) {
        checkLocked();
        if (port.capabilityMask() != mask) {
            port.setCapabilityMask(mask);
            changed(port, PortChange.CAPABILITIES);
        }
    }
}
