package ipoib.verbs.loopback.fabric;

import ipoib.api.Guid;
import ipoib.api.PKey;
import ipoib.api.verbs.PortEvent;
import ipoib.api.verbs.PortState;
import ipoib.api.verbs.VerbsException;
import ipoib.runtime.ControlLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;

/**
 * A loopback InfiniBand subnet: HCAs and their ports and the subnet manager, and the parts that
 * work on them, each a class of its own:
 * <ul>
 *   <li>{@link UdDelivery} and {@link RcDelivery}: the data path between queue pairs;</li>
 *   <li>{@link FaultInjector}: the faults of the packets a port sends;</li>
 *   <li>{@link WireTapFeed}: what the wire tap sees;</li>
 *   <li>{@link CmRouter}: CM MADs between the ports' QP1s;</li>
 *   <li>{@link PortAdministration}: ports down and up, resets, LIDs, P_Keys, SM changes;</li>
 *   <li>{@link FabricEvents}: the one loop of events and timers;</li>
 *   <li>{@link SubnetSweep}: the subnet manager's first sweep.</li>
 * </ul>
 * The queue pairs' own rules are in {@link LoopQueuePair} and {@link LoopRcQueuePair}, the
 * rendering of packets in {@link IbaPackets}.
 */
public final class Fabric implements AutoCloseable {
    private final FabricConfig config;
    private final List<LoopDevice> devices;
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
        this.subnetManager = new SubnetManager(this);
        List<LoopDevice> list = new ArrayList<>();
        for (int i = 0; i < config.hcas(); i++) {
            list.add(new LoopDevice(this, i, Guid.of(config.nodeGuidBase() + (long) (i + 1) * 0x100),
                    config.portsPerHca(), config.seed()));
        }
        this.devices = List.copyOf(list);
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : devices) {
            ports.addAll(d.loopPorts());
        }
        counters.ports(ports);
        counters.eventFailures(this.events::failures);
        FaultInjector faults = new FaultInjector(counters, this.events);
        this.ud = new UdDelivery(subnetManager, counters, faults, tap);
        this.rc = new RcDelivery(subnetManager, counters, faults, tap);
        this.cm = new CmRouter(subnetManager, counters, this.events, tap);
        this.administration = new PortAdministration(devices, subnetManager);
    }

    /** The subnet manager's sweep: LIDs, P_Key tables, ports ACTIVE, the configured IPoIB groups. */
    public void start() {
        new SubnetSweep(config, devices, subnetManager).run();
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
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                for (LoopQueuePair qp : p.queuePairs()) {
                    qp.fail();
                }
                p.setState(PortState.DOWN);
            }
        }
        events.close();
    }
}
