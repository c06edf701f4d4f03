package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortEvent;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortChange;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.TopologyListener;
import java.util.ArrayList;
import java.util.List;

/**
 * sm=external: what an external SM's Sets to an HCA port's agent (PortInfo, P_KeyTable) mean to
 * the verbs port above it, as the HCA's driver reports them (IBA 11.6.3 asynchronous events):
 * PORT_ACTIVE when the port becomes ACTIVE, PORT_ERROR when it leaves ACTIVE, LID_CHANGE,
 * SM_CHANGE when PortInfo's MasterSMLID changes, CLIENT_REREGISTER when the SM sets
 * ClientReregister, and PKEY_CHANGE with the verbs port's P_Key table copied from the agent's.
 * The topology tells of a change with its lock held; the verbs
 * port is updated and its listeners told on the fabric's events loop, in the order of the changes.
 */
final class ExternalPortManagement implements TopologyListener {
    private final Fabric fabric;

    ExternalPortManagement(Fabric fabric) {
        this.fabric = fabric;
    }

    /** What the verbs port was last told, to tell only what changed. */
    private static final class Seen {
        PortState state = PortState.DOWN;
        int lid;
        int smLid;
        int[] pkeys = new int[0];
    }

    private final java.util.Map<Port, Seen> seen = new java.util.IdentityHashMap<>();

    /** The verbs ports start with their agents' P_Key tables (what the SM finds before it sets any). */
    void start(java.util.List<LoopDevice> devices) {
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                Seen s = new Seen();
                s.pkeys = p.model.pkeys();
                p.setPKeys(PKeyTable.of(s.pkeys));
                synchronized (seen) {
                    seen.put(p.model, s);
                }
            }
        }
    }

    @Override
    public void portChanged(Port port, PortChange change) {
        LoopPort hca = fabric.hcaPort(port);
        if (hca == null) {
            return; // a switch port: no verbs port above it
        }
        // Read under the topology's lock (held by the caller), applied on the events loop.
        PortState state = port.state();
        boolean linkUp = port.linkUp();
        int lid = port.lid();
        int smLid = port.smLid();
        int[] pkeys = port.pkeys();
        boolean reregister = change == PortChange.CLIENT_REREGISTER;
        fabric.schedule(() -> apply(hca, linkUp ? state : PortState.DOWN, lid, smLid, pkeys, reregister), 0);
    }

    private void apply(LoopPort hca, PortState state, int lid, int smLid, int[] pkeys, boolean reregister) {
        Seen s;
        synchronized (seen) {
            s = seen.computeIfAbsent(hca.model, p -> new Seen());
        }
        List<PortEvent.Type> events = new ArrayList<>();
        if (!java.util.Arrays.equals(pkeys, s.pkeys)) {
            s.pkeys = pkeys;
            hca.setPKeys(PKeyTable.of(pkeys)); // zero entries are empty slots (IBA 10.9.1.2)
            events.add(PortEvent.Type.PKEY_CHANGE);
        }
        if (lid != s.lid && s.state == PortState.ACTIVE && state == PortState.ACTIVE) {
            events.add(PortEvent.Type.LID_CHANGE);
        }
        if (smLid != s.smLid && s.smLid != 0 && state == PortState.ACTIVE) {
            events.add(PortEvent.Type.SM_CHANGE);
        }
        if (state != s.state) {
            if (state == PortState.ACTIVE) {
                events.add(PortEvent.Type.PORT_ACTIVE);
            } else if (s.state == PortState.ACTIVE) {
                events.add(PortEvent.Type.PORT_ERROR);
            }
        }
        if (reregister) {
            events.add(PortEvent.Type.CLIENT_REREGISTER); // after SM_CHANGE: the joins go to the new SM
        }
        s.state = state;
        s.lid = lid;
        s.smLid = smLid;
        for (PortEvent.Type t : events) {
            hca.raise(t);
        }
    }
}
