package ipoib.verbs.loopback.internal;

import ipoib.runtime.CaptureFiles;
import ipoib.runtime.JsonText;
import ipoib.runtime.Numbers;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.PKey;
import ipoib.api.verbs.PortAttributes;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.verbs.loopback.fabric.FaultKind;
import ipoib.verbs.loopback.fabric.Faults;
import ipoib.verbs.loopback.fabric.LoopDevice;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.MulticastGroup;
import ipoib.verbs.loopback.fabric.PortStatistics;
import ipoib.verbs.loopback.subnet.NetFile;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.fabric.RcPortCounters;
import ipoib.verbs.loopback.fabric.SaFaults;
import ipoib.verbs.loopback.fabric.SubnetAdministratorEmulator;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import org.apache.felix.service.command.Descriptor;

/** Gogo commands of the loopback fabric (scope {@code fabric}). */
public final class FabricCommands {

    static final String[] FUNCTIONS = {"hcas", "groups", "sa", "stats", "fault", "faults", "clear", "reset", "down",
            "up", "lid", "smchange", "pkeys", "capture", "topology", "ports"};
    /** What Tab offers after each command (the launcher's console reads the service property). */
    static final String[] COMPLETION = {"hcas --json", "groups --json", "sa --json", "sa sendOnlyFullMember true|false",
            "stats --json", "fault loss|duplicate|reorder|corrupt|delay|sa-drop|sa-error|sa-status|sa-delay|trap-loss"
            + "|sa-rmpp-loss <value> <device/port>", "faults --json", "reset <device/port>", "down <device/port>",
            "up <device/port>", "lid <device/port> <lid>", "pkeys <device/port> <pkey>", "capture <file> <count>",
            "capture stop", "topology --net", "topology --json", "ports --json"};

    private final Fabric fabric;
    private final SubnetAdministratorEmulator sa;
    private final java.util.function.Supplier<CaptureFiles> captureFiles;
    private FabricCapture capture;

    FabricCommands(Fabric fabric, SubnetAdministratorEmulator sa) {
        this(fabric, sa, () -> CaptureFiles.fromProperties(System::getProperty));
    }

    /** @param captureFiles where fabric:capture writes (read at each command: the launch property) */
    FabricCommands(Fabric fabric, SubnetAdministratorEmulator sa, java.util.function.Supplier<CaptureFiles> captureFiles) {
        this.fabric = fabric;
        this.sa = sa;
        this.captureFiles = captureFiles;
    }

    /** The fabric, for the console's Fabric page (same bundle). */
    public Fabric fabric() {
        return fabric;
    }

    /** The emulated subnet administrator, for the console's Fabric page (same bundle). */
    public SubnetAdministratorEmulator subnetAdministrator() {
        return sa;
    }

    @Descriptor("list the HCAs and their ports: GUID, LID, state, MTU, P_Keys")
    public String hcas(@Descriptor("[--json]") String... args) {
        if (jsonListing("hcas", args)) {
            List<Map<String, Object>> hcas = new ArrayList<>();
            for (LoopDevice d : fabric.devices()) {
                List<Map<String, Object>> ports = new ArrayList<>();
                for (LoopPort p : d.loopPorts()) {
                    PortAttributes a = p.attributes();
                    ports.add(JsonText.record("port", p.number(), "guid", p.guid(), "lid", a.lid(), "state", a.state(),
                            "mtu", a.activeMtu().bytes(), "rate", a.rate(), "gid", p.gid(0), "pkeys", p.pkeyTable().keys()));
                }
                hcas.add(JsonText.record("device", d.name(), "nodeGuid", d.nodeGuid(), "ports", ports));
            }
            return JsonText.of(JsonText.record("hcas", hcas));
        }
        StringBuilder out = new StringBuilder();
        for (LoopDevice d : fabric.devices()) {
            out.append(d.name()).append("  node GUID ").append(d.nodeGuid()).append('\n');
            for (LoopPort p : d.loopPorts()) {
                PortAttributes a = p.attributes();
                out.append(String.format("    port %d  GUID %s  LID %s  %s  MTU %s  rate %s%n", p.number(), p.guid(),
                        a.lid(), a.state(), a.activeMtu(), a.rate()));
                out.append("           GID ").append(p.gid(0)).append("  P_Keys ").append(p.pkeyTable()).append('\n');
            }
        }
        return out.toString();
    }

    @Descriptor("list the multicast groups with their members and join states")
    public String groups(@Descriptor("[--json]") String... args) {
        boolean json = jsonListing("groups", args);
        List<MulticastGroup> groups = new ArrayList<>(fabric.subnetManager().groups());
        groups.sort(Comparator.comparing(g -> g.mlid().value()));
        if (json) {
            List<Map<String, Object>> records = new ArrayList<>();
            for (MulticastGroup g : groups) {
                var r = g.record(Gid.ZERO, JoinState.FULL_MEMBER.bit());
                List<Map<String, Object>> members = new ArrayList<>();
                g.members().forEach((gid, bits) -> members.add(JsonText.record("gid", gid,
                        "joinStates", joinStates(bits).isEmpty() ? List.of() : List.of(joinStates(bits).split("\\+")))));
                records.add(JsonText.record("mgid", g.mgid(), "mlid", g.mlid(), "qkey", r.qkey(), "pkey", r.pkey(),
                        "mtu", r.mtu().bytes(), "serviceLevel", r.serviceLevel(), "configured", g.persistent(),
                        "members", members));
            }
            return JsonText.of(JsonText.record("groups", records));
        }
        if (groups.isEmpty()) {
            return "no multicast groups";
        }
        StringBuilder out = new StringBuilder();
        for (MulticastGroup g : groups) {
            var r = g.record(Gid.ZERO, JoinState.FULL_MEMBER.bit());
            out.append(String.format("%s  MLID %s  Q_Key %s  P_Key %s  MTU %s  SL %d%s%n", g.mgid(), g.mlid(), r.qkey(),
                    r.pkey(), r.mtu(), r.serviceLevel(), g.persistent() ? "  (configured)" : ""));
            for (Map.Entry<Gid, Integer> m : g.members().entrySet()) {
                out.append("    ").append(m.getKey()).append("  ").append(joinStates(m.getValue())).append('\n');
            }
        }
        return out.toString();
    }

    private static String joinStates(int bits) {
        List<String> names = new ArrayList<>();
        for (JoinState s : JoinState.values()) {
            if ((bits & s.bit()) != 0) {
                names.add(s.toString());
            }
        }
        return String.join("+", names);
    }

    @Descriptor("show the emulated subnet administrator's statistics and faults; 'sendOnlyFullMember true|false' "
            + "sets whether it advertises and accepts SendOnlyFullMember joins (until the fabric is rebuilt)")
    public String sa(@Descriptor("[sendOnlyFullMember true|false] | --json") String... args) {
        if (args.length == 1 && args[0].equals(JsonText.FLAG)) {
            return JsonText.of(JsonText.record("statistics", sa.statistics(), "faults", sa.faults().toString(),
                    "sendOnlyFullMember", sa.sendOnlyFullMember(),
                    "trapSubscriptions", fabric.subnetManager().subscriptions().size()));
        }
        if (args.length > 0) {
            String usage = "fabric:sa [sendOnlyFullMember true|false] | fabric:sa --json";
            if (args.length != 2 || !args[0].equals("sendOnlyFullMember")) {
                throw usage(usage, args.length > 2 ? "too many arguments" : "unknown setting '" + args[0] + "'");
            }
            if (!args[1].equals("true") && !args[1].equals("false")) {
                throw usage(usage, "sendOnlyFullMember '" + args[1] + "' is not true or false");
            }
            sa.setSendOnlyFullMember(Boolean.parseBoolean(args[1]));
            return "the SA " + (sa.sendOnlyFullMember() ? "advertises and accepts" : "neither advertises nor accepts")
                    + " SendOnlyFullMember joins";
        }
        StringBuilder out = new StringBuilder();
        sa.statistics().forEach((k, v) -> out.append(String.format("%-48s %d%n", k, v)));
        out.append("faults: ").append(sa.faults()).append('\n');
        out.append("SendOnlyFullMember: ").append(sa.sendOnlyFullMember() ? "supported" : "not supported").append('\n');
        out.append("trap subscriptions: ").append(fabric.subnetManager().subscriptions().size()).append('\n');
        return out.toString();
    }

    @Descriptor("show the fabric's packet counters and drops by reason, and the ports where packets were dropped")
    public String stats(@Descriptor("[--json]") String... args) {
        if (jsonListing("stats", args)) {
            List<Map<String, Object>> rc = new ArrayList<>();
            for (LoopPort p : allPorts()) {
                if (p.rcCounters().any()) {
                    rc.add(JsonText.record("port", p.toString(), "counters", p.rcCounters().snapshot()));
                }
            }
            List<Map<String, Object>> drops = new ArrayList<>();
            for (Node n : fabric.topology().nodes()) {
                for (Port p : n.ports()) {
                    Map<String, Long> reasons = new java.util.LinkedHashMap<>();
                    PortStatistics.of(p).forEach((k, v) -> {
                        if (k.startsWith("drop_") && v > 0) {
                            reasons.put(k, v);
                        }
                    });
                    if (!reasons.isEmpty()) {
                        drops.add(JsonText.record("port", name(p), "drops", reasons));
                    }
                }
            }
            return JsonText.of(JsonText.record("counters", fabric.counters().snapshot(), "rc", rc, "drops", drops));
        }
        StringBuilder out = new StringBuilder();
        fabric.counters().snapshot().forEach((k, v) -> out.append(String.format("%-28s %d%n", k, v)));
        rcPerPort(out);
        dropsPerPort(out);
        return out.toString();
    }

    /** The ports where the data path dropped packets, with the reasons (fabric:ports shows every port). */
    private void dropsPerPort(StringBuilder out) {
        for (Node n : fabric.topology().nodes()) {
            for (Port p : n.ports()) {
                StringBuilder line = new StringBuilder();
                PortStatistics.of(p).forEach((k, v) -> {
                    if (k.startsWith("drop_") && v > 0) {
                        line.append(' ').append(k).append(' ').append(v);
                    }
                });
                if (!line.isEmpty()) {
                    out.append(String.format("drops at %-16s", name(p))).append(line).append('\n');
                }
            }
        }
    }

    /** RC traffic per port that carried any: data packets, retransmissions, ACK timeouts, ACKs and NAKs sent. */
    private void rcPerPort(StringBuilder out) {
        for (LoopDevice d : fabric.devices()) {
            for (LoopPort p : d.loopPorts()) {
                RcPortCounters rc = p.rcCounters();
                if (rc.any()) {
                    out.append(String.format("rc %-25s", p));
                    rc.snapshot().forEach((k, v) -> out.append(' ').append(k).append(' ').append(v));
                    out.append('\n');
                }
            }
        }
    }

    @Descriptor("inject a fault: loss|duplicate|reorder|corrupt <percent>, delay <ms> [device/port], "
            + "or sa-drop|sa-error|trap-loss|sa-rmpp-loss <percent>, sa-delay <ms>, sa-status <status>")
    public String fault(@Descriptor("<kind> <value> [device/port]") String... args) {
        String usage = "fabric:fault <" + FaultKind.alternatives(false) + "> <value> [device/port]\n"
                + "       fabric:fault <" + FaultKind.alternatives(true) + "> <value>";
        if (args.length < 2) {
            throw usage(usage, "a fault kind and a value are required");
        }
        FaultKind kind;
        try {
            kind = FaultKind.parse(args[0]);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        String value = args[1];
        String[] port = java.util.Arrays.copyOfRange(args, 2, args.length);
        int v;
        try {
            v = (int) Numbers.parse("value", value, kind.unit().min(), kind.unit().max());
        } catch (IllegalArgumentException e) {
            throw usage(usage, "fault '" + kind + "': " + e.getMessage() + " (" + kind.unit() + ")");
        }
        if (port.length > 1) {
            throw usage(usage, "too many arguments");
        }
        try {
            if (kind.ofSubnetAdministrator()) {
                if (port.length > 0) {
                    throw usage(usage, "SA faults apply to the whole subnet, not to a port");
                }
                sa.setFaults(sa.faults().with(kind, v));
                return "SA faults: " + sa.faults();
            }
            LoopPort target = port.length == 1 ? port(port[0], usage) : null;
            List<LoopPort> targets = target != null ? List.of(target) : allPorts();
            for (LoopPort p : targets) {
                fabric.setFaults(p, currentFaults(p).with(kind, v));
            }
            return (target == null ? "every port" : target.toString()) + ": " + currentFaults(targets.get(0));
        } catch (IllegalArgumentException e) {
            if (e.getMessage().contains("usage:")) {
                throw e;
            }
            throw usage(usage, e.getMessage());
        }
    }

    private Faults currentFaults(LoopPort p) {
        return fabric.faults(p);
    }

    @Descriptor("show the faults in force")
    public String faults(@Descriptor("[--json]") String... args) {
        if (jsonListing("faults", args)) {
            List<Map<String, Object>> ports = new ArrayList<>();
            for (LoopPort p : allPorts()) {
                Faults f = currentFaults(p);
                ports.add(JsonText.record("port", p.toString(), "lossPercent", f.lossPercent(),
                        "duplicatePercent", f.duplicatePercent(), "reorderPercent", f.reorderPercent(),
                        "delayMillis", f.delayMillis(), "corruptPercent", f.corruptPercent()));
            }
            SaFaults s = sa.faults();
            return JsonText.of(JsonText.record("ports", ports, "sa", JsonText.record("dropPercent", s.dropPercent(),
                    "delayMillis", s.delayMillis(), "errorPercent", s.errorPercent(),
                    "errorStatus", String.format("0x%04x", s.errorStatus()), "trapLossPercent", s.trapLossPercent(),
                    "rmppLossPercent", s.rmppLossPercent())));
        }
        StringBuilder out = new StringBuilder();
        for (LoopPort p : allPorts()) {
            out.append(p).append(": ").append(currentFaults(p)).append('\n');
        }
        out.append("SA: ").append(sa.faults()).append('\n');
        return out.toString();
    }

    @Descriptor("clear every fault")
    public String clear() {
        fabric.setFaults(null, Faults.NONE);
        sa.setFaults(SaFaults.NONE);
        return "faults cleared";
    }

    @Descriptor("reset a port: its queue pairs fail, it goes down and comes back (consumers get new QPNs)")
    public String reset(@Descriptor("device/port, e.g. loop0/1") String... args) {
        LoopPort p = port(one(args, "fabric:reset <device/port>"), "fabric:reset <device/port>");
        fabric.resetPort(p);
        fabric.awaitEventsDelivered();
        return "reset " + p;
    }

    @Descriptor("take the link at a port down, both ends: an HCA port (loop0/1) or any node's port (sw1 3, sw1/3); "
            + "the emulated SM reroutes around it")
    public String down(@Descriptor("device/port | node port") String... args) {
        String usage = "fabric:down <device/port> | <node> <port>";
        Port p = anyPort(args, usage);
        LoopPort hca = fabric.hcaPort(p);
        if (hca != null) {
            fabric.portDown(hca);
        } else {
            fabric.linkDown(p);
        }
        fabric.awaitEventsDelivered();
        return name(p) + " DOWN" + peerNote(p);
    }

    @Descriptor("bring the link at a port up, both ends: an HCA port (loop0/1) or any node's port (sw1 3, sw1/3)")
    public String up(@Descriptor("device/port | node port") String... args) {
        String usage = "fabric:up <device/port> | <node> <port>";
        Port p = anyPort(args, usage);
        LoopPort hca = fabric.hcaPort(p);
        try {
            if (hca != null) {
                fabric.portUp(hca);
            } else {
                fabric.linkUp(p);
            }
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        fabric.awaitEventsDelivered();
        // The state the port is in now: ACTIVE under the emulated SM, INIT until an external SM's
        // sweep arms and activates it (the port state machine: Down, Init, Armed, Active).
        PortState state = p.state();
        return name(p) + " " + state + peerNote(p)
                + (state == PortState.ACTIVE ? "" : ": the subnet manager activates it when it sweeps");
    }

    @Descriptor("show the subnet: nodes, their ports, the peers they are cabled to, LIDs and states; "
            + "'--net' writes it in ibsim's net-file format instead")
    public String topology(@Descriptor("[--net | --json]") String... args) {
        if (args.length == 1 && args[0].equals(JsonText.FLAG)) {
            return JsonText.of(JsonText.record("nodes", topologyRecords()));
        }
        if (args.length == 1 && args[0].equals("--net")) {
            try {
                return NetFile.write(fabric.topology());
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("fabric:topology --net: " + e.getMessage());
            }
        }
        if (args.length != 0) {
            throw usage("fabric:topology [--net | --json]", "unknown argument '" + String.join(" ", args) + "'");
        }
        StringBuilder out = new StringBuilder();
        for (Node n : fabric.topology().nodes()) {
            out.append(n.isSwitch() ? "switch " : "hca    ").append(n.name());
            out.append(String.format("  GUID 0x%016x", n.nodeGuid()));
            LoopPort first = n.isSwitch() ? null : fabric.hcaPort(n.port(1));
            if (first != null) {
                out.append("  device ").append(first.device().name());
            }
            if (n.isSwitch()) {
                out.append("  LID ").append(n.port(0).lid());
            }
            out.append('\n');
            for (Port p : n.ports()) {
                if (p.number() == 0) {
                    continue;
                }
                Port peer = p.peer();
                out.append(String.format("    [%d] %-22s %-6s %-8s", p.number(),
                        peer == null ? "-" : "\"" + peer.node().name() + "\"[" + peer.number() + "]",
                        p.state(), p.physicalState()));
                if (!n.isSwitch()) {
                    out.append(String.format("  LID %d  GUID 0x%016x", p.lid(), p.guid()));
                }
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** The nodes of {@code fabric:topology --json}, with the fields of the text listing. */
    private List<Map<String, Object>> topologyRecords() {
        List<Map<String, Object>> nodes = new ArrayList<>();
        for (Node n : fabric.topology().nodes()) {
            LoopPort first = n.isSwitch() ? null : fabric.hcaPort(n.port(1));
            List<Map<String, Object>> ports = new ArrayList<>();
            for (Port p : n.ports()) {
                if (p.number() == 0) {
                    continue;
                }
                Port peer = p.peer();
                ports.add(JsonText.record("port", p.number(),
                        "peer", peer == null ? null : JsonText.record("node", peer.node().name(), "port", peer.number()),
                        "state", p.state(), "physicalState", p.physicalState(),
                        "lid", n.isSwitch() ? null : p.lid(), "guid", n.isSwitch() ? null : String.format("0x%016x", p.guid())));
            }
            nodes.add(JsonText.record("name", n.name(), "type", n.isSwitch() ? "switch" : "hca",
                    "guid", String.format("0x%016x", n.nodeGuid()), "device", first == null ? null : first.device().name(),
                    "lid", n.isSwitch() ? n.port(0).lid() : null, "ports", ports));
        }
        return nodes;
    }

    @Descriptor("show every cabled port's traffic (packets and octets each way) and its drops by reason")
    public String ports(@Descriptor("[--json]") String... args) {
        if (jsonListing("ports", args)) {
            List<Map<String, Object>> ports = new ArrayList<>();
            for (Node n : fabric.topology().nodes()) {
                for (Port p : n.ports()) {
                    if (p.number() != 0 && p.peer() != null) {
                        ports.add(JsonText.record("port", name(p), "counters", PortStatistics.of(p)));
                    }
                }
            }
            return JsonText.of(JsonText.record("ports", ports));
        }
        StringBuilder out = new StringBuilder();
        for (Node n : fabric.topology().nodes()) {
            for (Port p : n.ports()) {
                if (p.number() == 0 || p.peer() == null) {
                    continue;
                }
                out.append(String.format("%-14s", name(p)));
                PortStatistics.of(p).forEach((k, v) -> out.append(' ').append(k).append(' ').append(v));
                out.append('\n');
            }
        }
        return out.toString();
    }

    /** A port as the commands name it: loop0/1 for an HCA port, sw1/3 for a switch's. */
    private String name(Port p) {
        LoopPort hca = fabric.hcaPort(p);
        return hca != null ? hca.toString() : p.node().name() + "/" + p.number();
    }

    private String peerNote(Port p) {
        return p.peer() == null ? "" : " (and its peer " + name(p.peer()) + ")";
    }

    /** A port from "loop0/1", "sw1/3" or "sw1 3". */
    private Port anyPort(String[] args, String usage) {
        String node;
        String number;
        if (args.length == 2) {
            node = args[0];
            number = args[1];
        } else if (args.length == 1 && args[0].contains("/")) {
            String[] parts = args[0].split("/", 2);
            node = parts[0];
            number = parts[1];
        } else if (args.length == 1) {
            throw usage(usage, "'" + args[0] + "' names no port: expected a device/port (loop0/1) or a node and a port (sw1 3)");
        } else {
            throw usage(usage, "expected a device/port (loop0/1) or a node and a port (sw1 3)");
        }
        int n;
        try {
            n = (int) Numbers.parse("port", number, 1, 254);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            return fabric.anyPort(node, n);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
    }

    @Descriptor("give a port a new LID (LID_CHANGE)")
    public String lid(@Descriptor("<device/port> <new LID, 2..0xbfff>") String... args) {
        String usage = "fabric:lid <device/port> <lid>";
        if (args.length != 2) {
            throw usage(usage, "expected a port and a LID");
        }
        LoopPort p = port(args[0], usage);
        String lid = args[1];
        int value;
        try {
            value = (int) Numbers.parse("LID", lid, 1, 0xBFFF); // unicast LIDs (IBA 4.1.3)
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            fabric.changeLid(p, value);
            fabric.awaitEventsDelivered();
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        return p + " LID " + p.attributes().lid();
    }

    @Descriptor("a new SM takes over: joins and subscriptions are forgotten, every port gets SM_CHANGE and CLIENT_REREGISTER")
    public String smchange() {
        fabric.smChange();
        fabric.awaitEventsDelivered();
        return "SM change signalled to every port";
    }

    @Descriptor("replace a port's P_Key table (PKEY_CHANGE); 'none' empties it")
    public String pkeys(@Descriptor("<device/port> <pkey>... | none, e.g. loop0/1 0xffff 0x8001") String... args) {
        String usage = "fabric:pkeys <device/port> <pkey>...   (fabric:pkeys <device/port> none empties the table)";
        if (args.length < 1) {
            throw usage(usage, "a port and its P_Keys are required");
        }
        LoopPort p = port(args[0], usage);
        String[] keys = java.util.Arrays.copyOfRange(args, 1, args.length);
        // An empty table takes the port off every partition: only when asked for by name.
        if (keys.length == 0) {
            throw usage(usage, "no P_Keys given for " + p + " (its table is " + p.pkeyTable()
                    + "); give the new table, or 'none' to empty it");
        }
        List<PKey> table = new ArrayList<>();
        if (keys.length == 1 && keys[0].equals("none")) {
            keys = new String[0];
        }
        for (String k : keys) {
            try {
                table.add(PKey.parse(k));
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        fabric.setPKeys(p, table);
        fabric.awaitEventsDelivered();
        return p + " P_Keys " + p.pkeyTable();
    }

    @Descriptor("capture every packet of the fabric as full IBA packets (pcapng, ERF type 21): "
            + "fabric:capture <file> [count, default 10000] | fabric:capture stop")
    public synchronized String capture(@Descriptor("<file> [count] | stop") String... args) {
        String usage = "fabric:capture <file> [count] | fabric:capture stop";
        if (args.length == 0) {
            throw usage(usage, "a file (or 'stop') is required");
        }
        String file = args[0];
        String[] count = java.util.Arrays.copyOfRange(args, 1, args.length);
        if ("stop".equals(file)) {
            if (capture == null) {
                throw usage(usage, "no capture is running");
            }
            capture.close();
            String summary = capture.summary();
            capture = null;
            return summary;
        }
        if (count.length > 1) {
            throw usage(usage, "too many arguments");
        }
        long limit = 10_000;
        if (count.length == 1) {
            try {
                limit = Numbers.parse("count", count[0], 1, 10_000_000);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        if (capture != null && capture.isRunning()) {
            throw usage(usage, "a capture is running; stop it first");
        }
        java.nio.file.Path path;
        try {
            path = captureFiles.get().resolve(file);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            capture = new FabricCapture(fabric, path, limit);
        } catch (java.io.IOException e) {
            throw usage(usage, "cannot write '" + path + "': " + ipoib.runtime.FileErrors.reason(e));
        }
        return "capturing up to " + limit + " packets to " + path + " (fabric:capture stop ends it)";
    }

    /** Stops a running capture (when the provider stops). */
    synchronized void stopCapture() {
        if (capture != null) {
            capture.close();
            capture = null;
        }
    }

    private List<LoopPort> allPorts() {
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : fabric.devices()) {
            ports.addAll(d.loopPorts());
        }
        return ports;
    }

    private LoopPort port(String text, String usage) {
        String[] parts = text.split("/", 2);
        int number = 1;
        if (parts.length == 2) {
            try {
                number = (int) Numbers.parse("port", parts[1], 1, 254);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        try {
            return fabric.port(parts[0], number);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
    }

    private static String one(String[] args, String usage) {
        if (args.length != 1) {
            throw usage(usage, "expected exactly one device/port, e.g. loop0/1");
        }
        return args[0];
    }

    /**
     * Whether a listing without arguments was asked for as JSON; any other argument is refused
     * with the command's usage.
     */
    private static boolean jsonListing(String function, String[] args) {
        if (args.length == 0) {
            return false;
        }
        if (args.length == 1 && args[0].equals(JsonText.FLAG)) {
            return true;
        }
        throw usage("fabric:" + function + " [--json]",
                "fabric:" + function + ": wrong arguments '" + String.join(" ", args) + "'");
    }

    private static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }
}
