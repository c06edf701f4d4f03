package ipoib.verbs.loopback.fabric;

import ipoib.api.PKey;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import java.util.List;

/**
 * What an operator (the {@code fabric:} commands, tests) does to ports: find them, take them down
 * and up, reset them, give them a new LID or P_Key table, announce a new SM, and set the faults of
 * the packets they send. Each change raises the port events a real HCA would.
 */
final class PortAdministration {
    private final List<LoopDevice> devices;
    private final SubnetManager subnetManager;

    PortAdministration(List<LoopDevice> devices, SubnetManager subnetManager) {
        this.devices = devices;
        this.subnetManager = subnetManager;
    }

    /** Finds a port by device name and number. */
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

    /** Takes a port down: PORT_ERROR, its memberships and subscriptions are gone. */
    void down(LoopPort port) {
        if (port.state() == PortState.DOWN) {
            return;
        }
        port.setState(PortState.DOWN);
        subnetManager.removePortEverywhere(port.gid(0));
        port.raise(PortEvent.Type.PORT_ERROR);
    }

    /** Brings a port back: ACTIVE and PORT_ACTIVE. */
    void up(LoopPort port) {
        if (port.state() == PortState.ACTIVE) {
            return;
        }
        port.setState(PortState.ACTIVE);
        port.raise(PortEvent.Type.PORT_ACTIVE);
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

    /** The SM gives a port a new LID (LID_CHANGE). */
    void changeLid(LoopPort port, int lid) {
        subnetManager.assignLid(port, lid);
        port.raise(PortEvent.Type.LID_CHANGE);
    }

    /** A new SM takes over: it forgets joins and subscriptions; every port gets SM_CHANGE and CLIENT_REREGISTER. */
    void smChange() {
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
        port.setPKeys(PKeyTable.of(keys));
        port.raise(PortEvent.Type.PKEY_CHANGE);
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
