package ipoib.verbs.loopback.fabric;

import ipoib.api.PKey;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortEvent;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.Topology;
import java.util.List;

/**
 * What an operator (the {@code fabric:} commands, tests) does to ports: find them, take links down
 * and up (HCA and switch ports alike), reset HCA ports, give them a new LID or P_Key table,
 * announce a new SM, and set the faults of the packets they send. Each change raises the port
 * events a real HCA would; the emulated SM sweeps after each link change.
 */
final class PortAdministration {
    private final Fabric fabric;
    private final Topology topology;
    private final List<LoopDevice> devices;
    private final SubnetManager subnetManager;
    private final SubnetSweep sweep;

    PortAdministration(Fabric fabric, SubnetSweep sweep) {
        this.fabric = fabric;
        this.topology = fabric.topology();
        this.devices = fabric.devices();
        this.subnetManager = fabric.subnetManager();
        this.sweep = sweep;
    }

    /** Finds an HCA port by device name and number. */
    LoopPort port(String device, int number) {
        for (LoopDevice d : devices) {
            if (d.name().equals(device)) {
                for (LoopPort p : d.loopPorts()) {
                    if (p.number() == number) {
                        return p;
                    }
                }
                throw new IllegalArgumentException("device " + device + " has no port " + number + "; ports are 1.."
                        + d.loopPorts().size());
            }
        }
        throw new IllegalArgumentException("no device '" + device + "'; devices are loop0..loop" + (devices.size() - 1));
    }

    /**
     * Finds any port by node: a device name (loop0), or a node name of the topology (a switch such
     * as sw1, or an HCA's name in the net file); a switch's ports are 1..N.
     */
    Port anyPort(String node, int number) {
        for (LoopDevice d : devices) {
            if (d.name().equals(node)) {
                return port(node, number).model;
            }
        }
        Node n = topology.node(node);
        if (n == null) {
            throw new IllegalArgumentException("no device or node '" + node + "': devices are loop0..loop"
                    + (devices.size() - 1) + ", nodes are " + nodeNames());
        }
        Port p = n.port(number);
        if (p == null || number == 0) {
            throw new IllegalArgumentException("node " + n.name() + " has no port " + number + " with a cable: ports are 1.."
                    + n.portCount());
        }
        return p;
    }

    private String nodeNames() {
        StringBuilder names = new StringBuilder();
        for (Node n : topology.nodes()) {
            names.append(names.isEmpty() ? "" : ", ").append(n.name());
        }
        return names.toString();
    }

    /** Takes an HCA port's link down: PORT_ERROR, its memberships and subscriptions are gone. */
    void down(LoopPort port) {
        linkDown(port.model);
    }

    /** Brings an HCA port's link back: ACTIVE and PORT_ACTIVE. */
    void up(LoopPort port) {
        linkUp(port.model);
    }

    /**
     * Takes the link at a port down, both ends (a switch port's too): the HCA ports on it get
     * PORT_ERROR and lose their memberships and subscriptions; the SM reroutes after
     * {@link SubnetSweep#REROUTE_DELAY_NANOS}.
     */
    void linkDown(Port port) {
        Port peer;
        topology.lock().lock();
        try {
            if (!port.linkUp()) {
                return;
            }
            peer = port.peer();
            topology.setLinkUp(port, false);
        } finally {
            topology.lock().unlock();
        }
        if (subnetManager.standsDown()) {
            return; // the external SM hears of it (trap 128) and reroutes; the verbs ports follow the model
        }
        for (Port end : new Port[] {port, peer}) {
            LoopPort hca = fabric.hcaPort(end);
            if (hca != null) {
                subnetManager.removePortEverywhere(hca.gid(0));
                hca.raise(PortEvent.Type.PORT_ERROR);
            }
        }
        sweep.rerouteLater();
    }

    /**
     * Brings the link at a port up, both ends: the SM sweeps at once (both ends ACTIVE, the
     * forwarding tables recomputed) and the HCA ports on it get PORT_ACTIVE.
     */
    void linkUp(Port port) {
        if (port.peer() == null) {
            throw new IllegalArgumentException("port " + port + " has no cable: only cabled ports go up and down");
        }
        if (port.linkUp() && (port.state() == PortState.ACTIVE || subnetManager.standsDown())) {
            return;
        }
        topology.lock().lock();
        try {
            topology.setLinkUp(port, true);
        } finally {
            topology.lock().unlock();
        }
        if (subnetManager.standsDown()) {
            return; // the link trains (INIT); the external SM makes it ACTIVE on its next sweep
        }
        sweep.reroute();
        for (Port end : new Port[] {port, port.peer()}) {
            LoopPort hca = fabric.hcaPort(end);
            if (hca != null) {
                hca.raise(PortEvent.Type.PORT_ACTIVE);
            }
        }
    }

    /**
     * A port reset: the port goes down, every queue pair on it fails (consumers create new ones,
     * which get new QPNs), and the port comes back up.
     */
    void reset(LoopPort port) {
        for (LoopQueuePair qp : port.queuePairs()) {
            qp.fail();
        }
        for (LoopRcQueuePair qp : port.rcQueuePairs()) {
            qp.toError();
        }
        down(port);
        port.raise(PortEvent.Type.DEVICE_FATAL);
        up(port);
    }

    /** The SM gives a port a new LID (LID_CHANGE); the switches forward it from now on. */
    void changeLid(LoopPort port, int lid) {
        refuseUnderExternalSm("give a port a LID");
        subnetManager.assignLid(port, lid);
        sweep.reroute();
        port.raise(PortEvent.Type.LID_CHANGE);
    }

    /** A new SM takes over: it forgets joins and subscriptions; every port gets SM_CHANGE and CLIENT_REREGISTER. */
    void smChange() {
        refuseUnderExternalSm("hand the subnet to a new emulated SM");
        subnetManager.forgetClients();
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                p.raise(PortEvent.Type.SM_CHANGE);
                p.raise(PortEvent.Type.CLIENT_REREGISTER);
            }
        }
    }

    /** Replaces a port's P_Key table (PKEY_CHANGE). */
    void setPKeys(LoopPort port, List<PKey> keys) {
        refuseUnderExternalSm("set a P_Key table");
        sweep.setPKeys(port, PKeyTable.of(keys));
        port.raise(PortEvent.Type.PKEY_CHANGE);
    }

    /** What only the emulated SM does is refused while an external SM manages the subnet. */
    private void refuseUnderExternalSm(String what) {
        if (subnetManager.standsDown()) {
            throw new IllegalStateException("cannot " + what + ": sm=external, the SM attached through the simulator "
                    + "server (OpenSM) manages the subnet");
        }
    }

    /** Sets the faults of packets sent by a port (all ports when null). */
    void setFaults(LoopPort port, Faults faults) {
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                if (port == null || p == port) {
                    p.faults = faults;
                }
            }
        }
    }
}
