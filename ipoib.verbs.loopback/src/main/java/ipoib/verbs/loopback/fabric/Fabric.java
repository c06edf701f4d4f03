package ipoib.verbs.loopback.fabric;

import ipoib.api.PKey;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.VerbsException;
import ipoib.runtime.ControlLoop;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.Topology;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A loopback InfiniBand subnet: the subnet model ({@link Topology}: HCAs, switches, cables, LIDs,
 * port states, forwarding tables), the verbs devices on its HCAs, the emulated subnet manager,
 * and the parts that work on them, each a class of its own:
 * <ul>
 *   <li>{@link UdDelivery} and {@link RcDelivery}: the data path between queue pairs;</li>
 *   <li>{@link SwitchForwarding}: packets hop by hop through the switches' forwarding tables;</li>
 *   <li>{@link FaultInjector}: the faults of the packets a port sends;</li>
 *   <li>{@link WireTapFeed}: what the wire tap sees;</li>
 *   <li>{@link CmRouter}: CM MADs between the ports' QP1s;</li>
 *   <li>{@link PortAdministration}: ports down and up, resets, LIDs, P_Keys, SM changes;</li>
 *   <li>{@link FabricEvents}: the one loop of events and timers;</li>
 *   <li>{@link SubnetSweep}: the subnet manager's sweeps ({@link MinHopRouting}, {@link MulticastTrees}).</li>
 * </ul>
 * The queue pairs' own rules are in {@link LoopQueuePair} and {@link LoopRcQueuePair}, the
 * rendering of packets in {@link IbaPackets}.
 */
public final class Fabric implements AutoCloseable {
    private final FabricConfig config;
    private final Topology topology;
    private final List<LoopDevice> devices;
    /** The verbs port of each HCA port of the model (read on the data path: no allocation). */
    private final Map<Port, LoopPort> loopPorts = new IdentityHashMap<>();
    private final SubnetSweep sweep;
    private final SubnetManager subnetManager;
    private final FabricCounters counters = new FabricCounters();
    private final FabricEvents events;
    private final WireTapFeed tap;
    private final PortAdministration administration;
    final UdDelivery ud;
    final RcDelivery rc;
    final CmRouter cm;
    private volatile boolean closed;

    public Fabric(FabricConfig config) {
        this(config, null);
    }

    /**
     * @param events the loop of the fabric's events and timers, or null for a thread of its own;
     *               closed with the fabric
     */
    public Fabric(FabricConfig config, ControlLoop events) {
        this.config = config;
        this.events = new FabricEvents(events);
        this.tap = new WireTapFeed(this.events.clock());
        this.topology = config.buildTopology();
        this.subnetManager = new SubnetManager(this);
        // The HCAs of the topology in their order are loop0, loop1, ...
        List<LoopDevice> list = new ArrayList<>();
        for (Node node : topology.nodes()) {
            if (!node.isSwitch()) {
                list.add(new LoopDevice(this, list.size(), node, config.seed()));
            }
        }
        this.devices = List.copyOf(list);
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : devices) {
            ports.addAll(d.loopPorts());
            for (LoopPort p : d.loopPorts()) {
                loopPorts.put(p.model, p);
            }
        }
        counters.ports(ports);
        counters.eventFailures(this.events::failures);
        FaultInjector faults = new FaultInjector(counters, this.events);
        SwitchForwarding forwarding = new SwitchForwarding(this, counters);
        this.ud = new UdDelivery(subnetManager, counters, faults, tap, forwarding);
        this.rc = new RcDelivery(counters, faults, tap, forwarding);
        this.cm = new CmRouter(counters, this.events, tap, forwarding);
        this.sweep = new SubnetSweep(config, topology, devices, subnetManager, this.events);
        this.administration = new PortAdministration(this, sweep);
    }

    /**
     * The subnet manager's first sweep: LIDs, P_Key tables, ports ACTIVE, forwarding tables, the
     * configured IPoIB groups.
     */
    public void start() {
        sweep.run();
    }

    /**
     * sm=external: no sweep and no emulated SM; the SM that attaches through the management plane
     * assigns the LIDs, P_Key tables and forwarding tables through the agents, and the verbs ports
     * follow what it sets ({@link ExternalPortManagement}). Instead of {@link #start()}.
     */
    public void startManagedExternally() {
        subnetManager.standDown();
        ExternalPortManagement management = new ExternalPortManagement(this);
        topology.lock().lock();
        try {
            management.start(devices);
            topology.addListener(management);
        } finally {
            topology.lock().unlock();
        }
    }

    /** The subnet model: nodes, cables, LIDs, port states, forwarding tables and per-port counters. */
    public Topology topology() {
        return topology;
    }

    /** The verbs port on an HCA port of the model, or null (a switch port). Allocation-free (the data path asks). */
    public LoopPort hcaPort(Port port) {
        return loopPorts.get(port);
    }

    public FabricConfig config() {
        return config;
    }

    public List<LoopDevice> devices() {
        return devices;
    }

    public SubnetManager subnetManager() {
        return subnetManager;
    }

    public FabricCounters counters() {
        return counters;
    }

    /**
     * How long a unicast UD sender is held while its destination has no posted receive buffer
     * before the datagram is dropped ({@link ReceiveBufferHold}; default 50 ms, zero: drop at once,
     * as an HCA's UD receiver without buffers does).
     *
     * @throws IllegalArgumentException when negative
     */
    public void receiveBufferHold(java.time.Duration bound) {
        ud.hold.bound(bound);
    }

    public java.time.Duration receiveBufferHold() {
        return ud.hold.bound();
    }

    PartitionConfig partition(int base) {
        for (PartitionConfig p : config.partitions()) {
            if (p.pkeyBase() == base) {
                return p;
            }
        }
        return null;
    }

    void checkOpen() {
        if (closed) {
            throw new VerbsException("the loopback fabric is closed (provider stopped)");
        }
    }

    public boolean isClosed() {
        return closed;
    }

    public void setWireTap(WireTap tap) {
        this.tap.set(tap);
    }

    /** Shows a management datagram to the wire tap (see {@link WireTapFeed#management}). */
    void tapManagement(int slid, int dlid, byte[] mad) {
        tap.management(slid, dlid, mad);
    }

    // ---- events and timers ------------------------------------------------------------------------

    void deliverEvent(Consumer<PortEvent> listener, PortEvent event) {
        events.deliver(listener, event);
    }

    /**
     * Waits until the port events raised so far have been handed to their listeners (for the shell:
     * a script's next command sees consumers that have been told). Not for the events thread itself.
     */
    public void awaitEventsDelivered() {
        events.awaitPosted();
    }

    /** Runs {@code task} on the events loop after {@code delayNanos} of its clock (0: after what is posted). */
    void schedule(Runnable task, long delayNanos) {
        events.schedule(task, delayNanos);
    }

    /** The loop of the fabric's events and timers (the SA emulator's clock when it is not given one). */
    ControlLoop events() {
        return events.loop();
    }

    // ---- port administration ----------------------------------------------------------------------

    /** Finds a port by device name and number. */
    public LoopPort port(String device, int number) {
        return administration.port(device, number);
    }

    /** Takes a port down: PORT_ERROR, its memberships and subscriptions are gone. */
    public void portDown(LoopPort port) {
        administration.down(port);
    }

    /** Brings a port back: ACTIVE and PORT_ACTIVE. */
    public void portUp(LoopPort port) {
        administration.up(port);
    }

    /**
     * Finds any cabled port: of an HCA by device name (loop0) or of any node by its name in the
     * topology (a switch, sw1).
     */
    public Port anyPort(String node, int number) {
        return administration.anyPort(node, number);
    }

    /** Takes the link at any port down (both ends); the emulated SM reroutes shortly after. */
    public void linkDown(Port port) {
        administration.linkDown(port);
    }

    /** Brings the link at any port up (both ends ACTIVE); the emulated SM reroutes at once. */
    public void linkUp(Port port) {
        administration.linkUp(port);
    }

    /**
     * A port reset: the port goes down, every queue pair on it fails (consumers create new ones,
     * which get new QPNs), and the port comes back up.
     */
    public void resetPort(LoopPort port) {
        administration.reset(port);
    }

    /** The SM gives a port a new LID (LID_CHANGE). */
    public void changeLid(LoopPort port, int lid) {
        administration.changeLid(port, lid);
    }

    /** A new SM takes over: it forgets joins and subscriptions; every port gets SM_CHANGE and CLIENT_REREGISTER. */
    public void smChange() {
        administration.smChange();
    }

    /** Replaces a port's P_Key table (PKEY_CHANGE). */
    public void setPKeys(LoopPort port, List<PKey> keys) {
        administration.setPKeys(port, keys);
    }

    /** The faults of packets a port sends. */
    public Faults faults(LoopPort port) {
        return port.faults;
    }

    /** Sets the faults of packets sent by a port (all ports when null). */
    public void setFaults(LoopPort port, Faults faults) {
        administration.setFaults(port, faults);
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        topology.lock().lock();
        try {
            for (LoopDevice d : devices) {
                for (LoopPort p : d.loopPorts()) {
                    for (LoopQueuePair qp : p.queuePairs()) {
                        qp.fail();
                    }
                    topology.setState(p.model, ipoib.verbs.loopback.subnet.PortState.DOWN);
                }
            }
        } finally {
            topology.lock().unlock();
        }
        events.close();
    }
}
