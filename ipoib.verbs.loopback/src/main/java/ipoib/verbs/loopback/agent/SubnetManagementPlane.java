package ipoib.verbs.loopback.agent;

import ipoib.codec.smp.Smp;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortChange;
import ipoib.verbs.loopback.subnet.Topology;
import java.lang.foreign.MemorySegment;
import java.util.Locale;

/**
 * The management plane of a {@link Topology}: attached clients, the agents of every node, and
 * the delivery of MADs between them as ibsim delivers them (ibsim/sim_mad.c process_packet,
 * ibsim/ibsim.c find_client). A request is routed (directed route by its path, otherwise by LID);
 * at its destination the SMA or PMA answers it and the answer is routed back to the sender; a MAD
 * no agent answers (SA, SMInfo, traps, responses) goes to the client attached at the destination
 * port: a response to the client whose id its TID carries, a request to QP0/QP1 to the port's SM,
 * a request to another QP to the client on that QP. What cannot be delivered goes back to the
 * sender with status 110 (ETIMEDOUT), as ibsim does. Everything runs under the topology's lock,
 * one MAD at a time.
 */
public final class SubnetManagementPlane implements ManagementPlane {
    /** Subnet administration's management class and its Report method (IBA 15.2.1, 13.4.5). */
    static final int SA_CLASS = 0x03;
    static final int SA_METHOD_REPORT = 0x06;

    /** sim_request.status of a MAD given back undelivered (ibsim/sim_mad.c process_packet: ETIMEDOUT). */
    public static final int UNDELIVERED = 110;

    private final Topology topology;
    /** Client ids are 16 bits: ibsim carries them in the top of the TID. */
    static final int MAX_INTERNAL_CLIENTS = 0x10000;

    /** Indexed by client id; null where free. */
    private final java.util.List<Client> clients = new java.util.ArrayList<>();
    private final SubnetAgentState state = new SubnetAgentState();
    private final SwitchAttributes switchAttributes = new SwitchAttributes(state);
    private final PortTableAttributes portTables;
    private final PortInfoAttribute portInfo;
    private final byte[] trap = new byte[Smp.LENGTH];

    public SubnetManagementPlane(Topology topology) {
        this.topology = topology;
        this.portTables = new PortTableAttributes(topology, state);
        this.portInfo = new PortInfoAttribute(topology);
        topology.addListener(this::portChanged);
    }

    public Topology topology() {
        return topology;
    }

    @Override
    public Attachment attach(String nodeId, boolean isSm, MadReceiver receiver) {
        Port port = resolve(nodeId == null ? "" : nodeId.strip());
        return attach(port, isSm, receiver, 0, MAX_CLIENTS);
    }

    /**
     * Attaches an in-JVM client (an appliance port's SA client) at a given port: an HCA port of
     * any number or a switch's port 0. These do not count against ibsim's {@link #MAX_CLIENTS};
     * their ids start at {@link #MAX_CLIENTS}.
     */
    public Attachment attachAt(Port port, boolean isSm, MadReceiver receiver) {
        return attach(port, isSm, receiver, MAX_CLIENTS, MAX_INTERNAL_CLIENTS);
    }

    private Attachment attach(Port port, boolean isSm, MadReceiver receiver, int firstId, int endId) {
        if (port.lidPort() != port) {
            throw new AttachRefusedException("cannot attach at " + port + ": clients attach at an HCA port or a "
                    + "switch's port 0");
        }
        topology.lock().lock();
        try {
            int free = -1;
            for (int i = clients.size() - 1; i >= 0; i--) {
                Client c = clients.get(i);
                if (c == null) {
                    if (i >= firstId && i < endId) {
                        free = i;
                    }
                } else if (isSm && c.sm && c.port.node() == port.node()) {
                    throw new AttachRefusedException("cannot attach an SM at \"" + port.node().name()
                            + "\": an SM is already attached there (client " + i + ")");
                }
            }
            if (free < 0) {
                free = Math.max(firstId, clients.size());
                if (free >= endId) {
                    throw new AttachRefusedException("cannot attach at \"" + port.node().name() + "\": "
                            + (endId - firstId) + " clients are attached, the most "
                            + (firstId == 0 ? "ibsim's protocol allows" : "the plane allows"));
                }
            }
            while (clients.size() <= free) {
                clients.add(null);
            }
            Client c = new Client(this, free, port, false, receiver);
            clients.set(free, c);
            if (isSm) {
                setSm(c, true);
            }
            return c;
        } finally {
            topology.lock().unlock();
        }
    }

    private Port resolve(String nodeId) {
        if (nodeId.isEmpty()) {
            return topology.defaultPort();
        }
        Node n = topology.node(nodeId);
        if (n == null) {
            n = topology.nodeByDescription(nodeId);
        }
        if (n == null && nodeId.toLowerCase(Locale.ROOT).startsWith("0x")) {
            try {
                long guid = Long.parseUnsignedLong(nodeId.substring(2), 16);
                Port p = topology.portByGuid(guid);
                if (p != null) {
                    return p;
                }
                n = topology.nodeByGuid(guid);
            } catch (NumberFormatException e) {
                n = null;
            }
        }
        if (n == null) {
            throw new AttachRefusedException("no node \"" + nodeId + "\": attach by a node's name, its "
                    + "NodeDescription or a node or port GUID as 0x-prefixed hexadecimal, or give none for the "
                    + "first node of the topology");
        }
        return n.ports().get(0);
    }

    void locked(Runnable r) {
        topology.lock().lock();
        try {
            r.run();
        } finally {
            topology.lock().unlock();
        }
    }

    /** SIM_CTL_SET_ISSM (ibsim/ibsim.c set_issm): PortInfo.IsSM follows, and a capability-mask trap 144 is sent. */
    void setSm(Client c, boolean isSm) {
        locked(() -> {
            if (c.closed) {
                return;
            }
            c.sm = isSm;
            Port p = c.port;
            int old = p.capabilityMask();
            int mask = isSm ? old | Port.CAP_IS_SM : old & ~Port.CAP_IS_SM;
            topology.setCapabilityMask(p, mask);
            if (old != mask && (mask & (Port.CAP_IS_NOTICE | Port.CAP_IS_TRAP)) != 0
                    && (mask & Port.CAP_IS_CAPABILITY_MASK_NOTICE) != 0) {
                sendTrap(p, Traps.CAPABILITY_MASK_CHANGE);
            }
        });
    }

    void detach(Client c) {
        locked(() -> {
            if (c.closed) {
                return;
            }
            if (c.sm) {
                setSm(c, false);
            }
            c.closed = true;
            clients.set(c.clientId(), null);
        });
    }

    private void portChanged(Port port, PortChange change) {
        // IBA 14.2.5.4: a switch port's link going down or up sets PortStateChange and raises trap 128.
        if (change == PortChange.LINK && port.node().isSwitch() && port.number() != 0) {
            state.switchState(port.node()).portStateChange = true;
            sendTrap(port.node().port(0), Traps.LINK_STATE_CHANGE);
        }
    }

    private void sendTrap(Port from, int number) {
        if (!Traps.encode(from, number, trap)) {
            return;
        }
        Port to = MadRouter.lidRoute(from, from.smLid());
        if (to == null) {
            return;
        }
        Client sm = findClient(to, false, 0, 0, Smp.CLASS_LID_ROUTED, Smp.METHOD_TRAP);
        if (sm != null) {
            sm.receiver.received(from.smLid(), from.lid(), 0, 0, 0, trap, Smp.LENGTH);
        }
    }

    /** A MAD from a client (ibsim/sim_mad.c process_packet). */
    void send(Client from, int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {
        byte[] buf = new byte[Smp.LENGTH];
        System.arraycopy(mad, 0, buf, 0, Math.min(Math.max(length, 0), Smp.LENGTH));
        topology.lock().lock();
        try {
            if (from.closed) {
                return;
            }
            process(from, dlid & 0xFFFF, slid & 0xFFFF, dqp, sqp, buf);
        } finally {
            topology.lock().unlock();
        }
    }

    private void process(Client from, int dlid, int slid, int dqp, int sqp, byte[] buf) {
        MemorySegment s = MemorySegment.ofArray(buf);
        // ibsim/sim_mad.c decode_sim_MAD: base version 1, class version at most 2 (SMA 1, SA 2).
        if (Smp.baseVersion(s) != 1 || Smp.classVersion(s) > 2) {
            giveBack(from, dlid, slid, dqp, sqp, buf);
            return;
        }
        boolean response = Smp.isResponse(s);
        boolean directed = Smp.isDirectedRoute(s);
        if (directed && (Smp.drSlid(s) != Smp.PERMISSIVE_LID || Smp.drDlid(s) != Smp.PERMISSIVE_LID)) {
            // Directed routes with LID-routed parts (IBA 14.2.2.1) are not used by OpenSM; ibsim refuses them too.
            giveBack(from, dlid, slid, dqp, sqp, buf);
            return;
        }
        if (!directed && slid == 0) {
            slid = from.port.lid();
        }
        long tid = Smp.transactionId(s);
        if (!response) {
            // ibsim/sim_mad.c update_trid: the requester's client id rides in the TID's top 16 bits.
            tid = (tid & 0xFFFF_FFFF_FFFFL) | ((long) from.clientId() << 48);
            Smp.setTransactionId(s, tid);
        }
        if (Smp.method(s) == Smp.METHOD_TRAP_REPRESS) {
            return; // the SM acknowledging a trap: nothing to deliver (ibsim does the same)
        }
        Port dest = route(from.port, response, dlid, s);
        if (dest == null) {
            giveBack(from, dlid, slid, dqp, sqp, buf);
            return;
        }
        AttributeHandler handler = response ? null : handler(Smp.managementClass(s), Smp.attributeId(s));
        if (handler == null) {
            Client to = findClient(dest, response, dqp, tid, Smp.managementClass(s), Smp.method(s));
            if (to == null) {
                giveBack(from, dlid, slid, dqp, sqp, buf);
                return;
            }
            if (!to.receiver.received(dlid, slid, dqp, sqp, 0, buf, Smp.LENGTH) && !response) {
                // Beyond ibsim, which drops it: under umad2sim no kernel times a request out, so an
                // SM whose request went to a client that vanished (a killed master SM, polled by a
                // standby) would wait for it forever (OpenSM's ibumad vendor takes the timeout
                // from the kernel: osm_vendor_ibumad.c umad_receiver, a send with status ETIMEDOUT).
                giveBack(from, dlid, slid, dqp, sqp, buf);
            }
            return;
        }
        int method = Smp.method(s);
        int status = method == Smp.METHOD_GET || method == Smp.METHOD_SET
                ? handler.handle(dest, method, Smp.attributeModifier(s), dataOf(s))
                : Smp.STATUS_UNSUPPORTED_METHOD;
        Smp.toResponse(s, status);
        Port back = route(dest, true, slid, s);
        if (back == null || back.node() != from.port.node()) {
            giveBack(from, dlid, slid, dqp, sqp, buf);
            return;
        }
        from.receiver.received(slid, dlid, sqp, dqp, 0, buf, Smp.LENGTH);
    }

    private static MemorySegment dataOf(MemorySegment s) {
        return s.asSlice(Smp.DATA, Smp.isDirectedRoute(s) || Smp.managementClass(s) == Smp.CLASS_LID_ROUTED
                ? Smp.DATA_LENGTH : Smp.LENGTH - Smp.DATA);
    }

    /** ibsim/sim_mad.c route_MAD: by LID when one is given, otherwise by the directed route. */
    private static Port route(Port from, boolean response, int lid, MemorySegment s) {
        if (lid >= 0 && lid < Smp.PERMISSIVE_LID) {
            return MadRouter.lidRoute(from, lid);
        }
        return response ? MadRouter.directedIn(from, s) : MadRouter.directedOut(from, s);
    }

    private AttributeHandler handler(int managementClass, int attribute) {
        if (managementClass == Smp.CLASS_LID_ROUTED || managementClass == Smp.CLASS_DIRECTED_ROUTE) {
            return switch (attribute) {
                case Smp.ATTR_NODE_DESCRIPTION -> NodeAttributes::nodeDescription;
                case Smp.ATTR_NODE_INFO -> NodeAttributes::nodeInfo;
                case Smp.ATTR_GUID_INFO -> NodeAttributes::guidInfo;
                case Smp.ATTR_SWITCH_INFO -> switchAttributes::switchInfo;
                case Smp.ATTR_LINEAR_FORWARDING_TABLE -> switchAttributes::linearForwardingTable;
                case Smp.ATTR_MULTICAST_FORWARDING_TABLE -> switchAttributes::multicastForwardingTable;
                case Smp.ATTR_PORT_INFO -> portInfo::handle;
                case Smp.ATTR_PKEY_TABLE -> portTables::pkeyTable;
                case Smp.ATTR_SL_TO_VL_MAPPING_TABLE -> portTables::slToVlMappingTable;
                case Smp.ATTR_VL_ARBITRATION_TABLE -> portTables::vlArbitrationTable;
                default -> null; // SMInfo, Notice and the rest go to the port's SM
            };
        }
        if (managementClass == Smp.CLASS_PERFORMANCE) {
            return switch (attribute) {
                case Smp.ATTR_CLASS_PORT_INFO -> PerformanceAgent::classPortInfo;
                case Smp.ATTR_PORT_COUNTERS -> PerformanceAgent::portCounters;
                case Smp.ATTR_PORT_COUNTERS_EXTENDED -> PerformanceAgent::portCountersExtended;
                default -> null;
            };
        }
        return null;
    }

    /**
     * ibsim/ibsim.c find_client: a response goes to the client its TID names when that client is
     * attached at the port; a request to QP0 or QP1 for a manager (an SMP, an SA query) to the
     * port's SM. Beyond ibsim, which has no other QP1 clients: a request a manager sends to a
     * port (an SA Report, a CM MAD) goes to the port's other client, an in-JVM port attached with
     * {@link #attachAt}, or else to its SM.
     */
    private Client findClient(Port arrival, boolean response, int qp, long tid, int managementClass, int method) {
        // ibsim compares port GUIDs: a switch's ports share port 0's, where its clients attach.
        Port port = arrival.lidPort();
        if (response) {
            int id = (int) (tid >>> 48);
            if (id < clients.size() && clients.get(id) != null && clients.get(id).port == port) {
                return clients.get(id);
            }
            return null;
        }
        if (qp > 1) {
            return null; // ibsim's clients all attach with QP 0
        }
        boolean forManager = managementClass == Smp.CLASS_LID_ROUTED || managementClass == Smp.CLASS_DIRECTED_ROUTE
                || (managementClass == SA_CLASS && method != SA_METHOD_REPORT);
        Client sm = null;
        Client other = null;
        for (Client c : clients) {
            if (c == null || c.port != port) {
                continue;
            }
            if (c.sm && sm == null) {
                sm = c;
            } else if (!c.sm && other == null) {
                other = c;
            }
        }
        return forManager || other == null ? sm : other;
    }

    private static void giveBack(Client to, int dlid, int slid, int dqp, int sqp, byte[] buf) {
        to.receiver.received(dlid, slid, dqp, sqp, UNDELIVERED, buf, Smp.LENGTH);
    }
}
