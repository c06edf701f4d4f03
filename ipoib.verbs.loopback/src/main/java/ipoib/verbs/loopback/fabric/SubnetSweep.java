package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.verbs.PKeyTable;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.Topology;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The emulated subnet manager's sweeps. The first: a LID for every HCA port and every switch's
 * port 0 (the first switch's is the SM's, {@link SubnetManager#SM_LID}), each HCA port's P_Key
 * table from the partition configuration, every port with its link up ACTIVE, the switches'
 * forwarding tables ({@link MinHopRouting}, {@link MulticastTrees}) and the configured IPoIB
 * broadcast groups. Later ones, after a link went down or came up: ports ACTIVE again and the
 * tables recomputed, so that traffic takes the routes that are left.
 */
final class SubnetSweep {
    /**
     * How long after a link went down the SM has rerouted: the time OpenSM takes from the trap
     * (128, link state change) to the heavy sweep that reprograms the tables.
     */
    static final long REROUTE_DELAY_NANOS = 100_000_000L;

    private final FabricConfig config;
    private final Topology topology;
    private final List<LoopDevice> devices;
    private final SubnetManager subnetManager;
    private final FabricEvents events;
    private final MinHopRouting unicast;

    SubnetSweep(FabricConfig config, Topology topology, List<LoopDevice> devices, SubnetManager subnetManager,
                FabricEvents events) {
        this.config = config;
        this.topology = topology;
        this.devices = devices;
        this.subnetManager = subnetManager;
        this.events = events;
        this.unicast = new MinHopRouting(topology);
    }

    /** The first sweep. */
    void run() {
        topology.lock().lock();
        try {
            List<Node> switches = new ArrayList<>();
            for (Node n : topology.nodes()) {
                if (n.isSwitch()) {
                    switches.add(n);
                }
            }
            if (!switches.isEmpty()) {
                topology.assignLid(switches.get(0).port(0), SubnetManager.SM_LID, 0);
            }
            // With LMC > 0 a base LID is a multiple of 2^LMC (IBA 7.11.1), as OpenSM assigns them.
            int lids = 1 << config.lmc();
            int lid = (SubnetManager.FIRST_PORT_LID + lids - 1) / lids * lids;
            for (LoopDevice d : devices) {
                for (LoopPort p : d.loopPorts()) {
                    subnetManager.assignLid(p, lid);
                    lid += lids;
                    setPKeys(p, pkeyTableFor(p));
                }
            }
            // The other switches after the HCAs: the HCA ports keep the LIDs they had without switches.
            for (int i = 1; i < switches.size(); i++) {
                topology.assignLid(switches.get(i).port(0), lid++, 0);
            }
            activateAndRoute();
        } finally {
            topology.lock().unlock();
        }
        for (PartitionConfig partition : config.partitions()) {
            if (partition.ipoib()) {
                subnetManager.createPersistent(broadcastGroup(partition));
            }
        }
    }

    /** Sweeps again now: ports whose link is up ACTIVE, the forwarding tables recomputed. */
    void reroute() {
        topology.lock().lock();
        try {
            activateAndRoute();
        } finally {
            topology.lock().unlock();
        }
        subnetManager.trees().programAll();
    }

    /** Sweeps again after {@link #REROUTE_DELAY_NANOS} on the events loop (after a link went down). */
    void rerouteLater() {
        events.schedule(this::reroute, REROUTE_DELAY_NANOS);
    }

    private void activateAndRoute() {
        for (Node n : topology.nodes()) {
            for (Port p : n.ports()) {
                if (p.linkUp() || p.isSwitchPort0()) {
                    topology.setState(p, PortState.ACTIVE);
                }
            }
        }
        unicast.run();
    }

    /** Replaces a port's P_Key table, in the verbs port and in the model (what the SMA reports). */
    void setPKeys(LoopPort port, PKeyTable table) {
        port.setPKeys(table);
        topology.lock().lock();
        try {
            for (int i = 0; i < port.model.pkeyEntries(); i++) {
                topology.setPkey(port.model, i, i < table.size() ? table.get(i).map(PKey::value).orElse(0) : 0);
            }
        } finally {
            topology.lock().unlock();
        }
    }

    private PKeyTable pkeyTableFor(LoopPort port) {
        List<PKey> keys = new ArrayList<>();
        for (PartitionConfig partition : config.partitions()) {
            Optional<Boolean> full = membership(partition, port);
            full.ifPresent(f -> keys.add(PKey.of(partition.pkeyBase() | (f ? PKey.FULL_MEMBER_BIT : 0))));
        }
        return PKeyTable.of(keys);
    }

    /** The port's membership of a partition: full (true), limited (false) or none; full wins. */
    private static Optional<Boolean> membership(PartitionConfig partition, LoopPort port) {
        Optional<Boolean> result = Optional.empty();
        for (PartitionConfig.Member m : partition.members()) {
            if (m.matches(port.device.name(), port.number(), port.guid())) {
                if (m.full()) {
                    return Optional.of(true);
                }
                result = Optional.of(false);
            }
        }
        return result;
    }

    /** The broadcast group of an IPoIB partition (RFC 4391 §4): parameters from the partition line. */
    private static McMemberRecord broadcastGroup(PartitionConfig partition) {
        PKey pkey = PKey.of(partition.pkeyBase() | PKey.FULL_MEMBER_BIT);
        Mgid mgid = Mgid.of(0xFF10_401B_0000_0000L | (long) partition.scope() << 48 | (long) pkey.value() << 16,
                0x0000_0000_FFFF_FFFFL);
        return new McMemberRecord(mgid, Gid.ZERO, partition.qkey(), Lid.of(Lid.MULTICAST_BASE), partition.mtu(), 0,
                pkey, partition.rate(), SubnetManager.PACKET_LIFETIME, partition.serviceLevel(), 0, 0,
                JoinState.FULL_MEMBER, false);
    }
}
