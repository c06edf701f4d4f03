package ipoib.verbs.loopback.subnet;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * ibsim's net-file format (ibsim/sim_net.c parse_netconf and its helpers; the format of
 * {@code ibnetdiscover} output, net-examples/examples.README): {@code Switch N "name"} and
 * {@code Hca N "name"} (or {@code Ca}) records, each followed by its cabled ports
 * {@code [p] "peer"[q]}, and the settings {@code switchguid=}, {@code caguid=}/{@code hcaguids=},
 * {@code sysimgguid=}, {@code vendid=}, {@code devid=}, {@code width=} and {@code speed=}.
 *
 * <p>GUIDs are assigned as ibsim assigns them (sim_net.c new_node, init_ports): HCAs from
 * 0x100000, switches from 0x200000, or from the last {@code caguid=}/{@code switchguid=} (absolute,
 * or relative with {@code +}); an HCA with N ports takes N+1 GUIDs, its node GUID and node + p for
 * port p; a switch takes one. Width and speed come from {@code w=}/{@code s=} options or the
 * ibnetdiscover comment ({@code # ... lid 3 4xQDR}). ibsim's extensions that change the simulator
 * rather than the subnet ({@code include}, {@code do}, {@code module}, aliases, routers, extended
 * speeds) are refused by name.
 */
public final class NetFile {
    /** ibsim's first GUIDs (sim_net.c absguids). */
    public static final long FIRST_HCA_GUID = 0x100000L;
    public static final long FIRST_SWITCH_GUID = 0x200000L;

    /** NodeInfo.Revision of every node, as ibsim's NodeInfo templates (sim_net.c swnodeinfo, hcanodeinfo). */
    public static final int IBSIM_REVISION = 0xA1;

    private static final Pattern HEADER = Pattern.compile("^(Switch|Hca|Ca)\\s+(\\d+)\\s+\"([^\"]*)\"(.*)$");
    private static final Pattern PORT = Pattern.compile(
            "^\\[(\\d+)\\](?:\\([0-9a-fA-F]+\\))?\\s*\"([^\"]*)\"(?:\\[(\\d+)\\])?(?:\\([0-9a-fA-F]+\\))?(.*)$");
    private static final Pattern RATE = Pattern.compile("lid\\s+\\d+\\s+(\\d+)x(\\w+)[^\"]*$");
    private static final Pattern OPTION = Pattern.compile("\\b([wse])=(\\S+)");

    private NetFile() {
    }

    /** Reads and parses a net file. */
    public static Topology read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new IOException("it is not UTF-8 text", e);
        }
        return parse(file.toString(), text);
    }

    /** Parses a net file's text; {@code fileName} names it in errors. */
    public static Topology parse(String fileName, String text) {
        return new Parser(fileName).parse(text);
    }

    /** One declared port line: kept until every record is read, then cabled once per pair. */
    private record PortLine(String node, int port, String peer, int peerPort, int lineNumber) {
    }

    private static final class Parser {
        private final String file;
        private final TopologyBuilder builder = new TopologyBuilder();
        private final List<PortLine> portLines = new ArrayList<>();
        private final Map<String, PortLine> byEnd = new LinkedHashMap<>();
        private final Map<String, int[]> rates = new LinkedHashMap<>();
        private long hcaBase = FIRST_HCA_GUID;
        private long nextHcaGuid = FIRST_HCA_GUID;
        private long switchBase = FIRST_SWITCH_GUID;
        private long nextSwitchGuid = FIRST_SWITCH_GUID;
        private long systemImageGuid;
        private int vendorId;
        private int deviceId;
        private int width = LinkRates.WIDTH_4X;
        private int speed = LinkRates.SPEED_SDR;
        private int lineNumber;

        Parser(String file) {
            this.file = file;
        }

        Topology parse(String text) {
            String[] lines = text.split("\r?\n", -1);
            String currentNode = null;
            NodeType currentType = null;
            int currentPorts = 0;
            for (int i = 0; i < lines.length; i++) {
                lineNumber = i + 1;
                String line = lines[i];
                String trimmed = line.strip();
                if (currentNode != null && (trimmed.startsWith("[") || trimmed.startsWith("@"))) {
                    if (trimmed.startsWith("@")) {
                        throw error("port aliases ('@') are not supported: write the peer's node name");
                    }
                    portLine(currentNode, currentType, currentPorts, trimmed);
                    continue;
                }
                currentNode = null;
                if (trimmed.isEmpty() || trimmed.startsWith("#")) {
                    continue;
                }
                Matcher h = HEADER.matcher(trimmed);
                if (h.matches()) {
                    currentType = h.group(1).equals("Switch") ? NodeType.SWITCH : NodeType.HCA;
                    currentPorts = number(h.group(2), "port count");
                    currentNode = h.group(3);
                    node(currentType, currentNode, currentPorts, h.group(4));
                    continue;
                }
                setting(trimmed);
            }
            lineNumber = 0;
            cableAll();
            try {
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw new NetFileException(file, 0, e.getMessage());
            }
        }

        private void node(NodeType type, String name, int ports, String rest) {
            String description = description(rest);
            long guid;
            long[] portGuids = null;
            if (type == NodeType.SWITCH) {
                guid = nextSwitchGuid++;
            } else {
                guid = nextHcaGuid;
                portGuids = new long[Math.max(ports, 0)];
                for (int p = 0; p < portGuids.length; p++) {
                    portGuids[p] = guid + p + 1;
                }
                nextHcaGuid += ports + 1;
            }
            TopologyBuilder.Identity identity = new TopologyBuilder.Identity(
                    description == null || description.isEmpty() ? name : description,
                    systemImageGuid != 0 ? systemImageGuid : guid, vendorId, deviceId, IBSIM_REVISION);
            // ibsim/sim_net.c new_node: vendid and sysimgguid apply to the next node only.
            systemImageGuid = 0;
            vendorId = 0;
            try {
                if (type == NodeType.SWITCH) {
                    builder.switchNode(name, guid, ports, identity);
                } else {
                    builder.hca(name, guid, portGuids, identity);
                }
            } catch (IllegalArgumentException e) {
                throw error(e.getMessage());
            }
            rates.put(name, new int[] {width, speed});
        }

        /** ibsim/sim_net.c parse_node_desc: "# "quoted"" or "# text" up to " lid ", " lmc ", " enhanced port ", " base port ". */
        private static String description(String rest) {
            int hash = rest.indexOf('#');
            if (hash < 0) {
                return null;
            }
            String s = rest.substring(hash + 1).stripLeading();
            if (s.startsWith("\"")) {
                int end = s.indexOf('"', 1);
                return end < 0 ? s.substring(1) : s.substring(1, end);
            }
            int end = s.length();
            for (String stop : new String[] {" enhanced port ", " base port ", " lid ", " lmc "}) {
                int at = s.indexOf(stop);
                if (at >= 0 && at < end) {
                    end = at;
                }
            }
            return s.substring(0, end).strip();
        }

        private void portLine(String node, NodeType type, int ports, String line) {
            Matcher m = PORT.matcher(line);
            if (!m.matches()) {
                throw error("cannot read port line '" + line + "': allowed [port] \"peer\"[peerport] with optional "
                        + "w=WIDTHMASK s=SPEEDMASK or an ibnetdiscover comment");
            }
            int port = number(m.group(1), "port number");
            if (port < 1 || port > ports) {
                throw error("port " + port + " of \"" + node + "\": allowed 1.." + ports
                        + (type == NodeType.SWITCH ? " (port 0 is the switch's management port, never cabled)" : ""));
            }
            String peer = m.group(2);
            // ibsim/sim_net.c parse_port: a peer without [port] is cabled at its port 1.
            int peerPort = m.group(3) == null ? 1 : number(m.group(3), "peer port number");
            if (peerPort < 1) {
                throw error("peer port " + peerPort + " of \"" + peer + "\": allowed 1 and above");
            }
            String key = node + "[" + port + "]";
            if (byEnd.containsKey(key)) {
                throw error("port " + port + " of \"" + node + "\" is declared twice (first on line "
                        + byEnd.get(key).lineNumber() + ")");
            }
            PortLine pl = new PortLine(node, port, peer, peerPort, lineNumber);
            byEnd.put(key, pl);
            portLines.add(pl);
            int[] r = rates.get(node).clone();
            portRates(m.group(4), r);
            rates.put(key, r);
        }

        private void portRates(String rest, int[] r) {
            Matcher opt = OPTION.matcher(rest);
            boolean options = false;
            while (opt.find()) {
                options = true;
                int v = number(opt.group(2), opt.group(1) + "=");
                switch (opt.group(1)) {
                    case "w" -> r[0] = v;
                    case "s" -> r[1] = v == 0 ? LinkRates.SPEED_QDR : v; // sim_net.c parse_port_opt: 0 is QDR
                    default -> {
                        if (v != 0) {
                            throw error("e=" + v + ": extended speeds are not supported: allowed e=0");
                        }
                    }
                }
            }
            Matcher rate = RATE.matcher(rest);
            if (!options && rate.find()) {
                // sim_net.c parse_port_link_width_and_speed
                r[0] = switch (rate.group(1)) {
                    case "1" -> LinkRates.WIDTH_1X;
                    case "2" -> LinkRates.WIDTH_2X;
                    case "4" -> LinkRates.WIDTH_1X | LinkRates.WIDTH_4X;
                    case "8" -> LinkRates.WIDTH_8X;
                    case "12" -> LinkRates.WIDTH_1X | LinkRates.WIDTH_4X | LinkRates.WIDTH_12X;
                    default -> throw error("width " + rate.group(1) + "x: allowed 1x, 2x, 4x, 8x, 12x");
                };
                r[1] = switch (rate.group(2).toUpperCase(Locale.ROOT)) {
                    case "SDR" -> LinkRates.SPEED_SDR;
                    case "DDR" -> LinkRates.SPEED_SDR | LinkRates.SPEED_DDR;
                    case "QDR" -> LinkRates.SPEED_ALL;
                    default -> throw error("speed " + rate.group(2)
                            + ": allowed SDR, DDR, QDR (extended speeds are not modelled)");
                };
            }
        }

        private void setting(String line) {
            String key = line.split("[=+\\s]", 2)[0];
            switch (key) {
                case "switchguid" -> {
                    long[] r = guidBase(line, switchBase);
                    switchBase = r[0];
                    nextSwitchGuid = r[1];
                }
                case "hcaguids", "caguid" -> {
                    long[] r = guidBase(line, hcaBase);
                    hcaBase = r[0];
                    nextHcaGuid = r[1];
                }
                case "sysimgguid" -> systemImageGuid = value(line);
                case "vendid" -> vendorId = (int) value(line);
                case "devid" -> deviceId = (int) value(line);
                case "width" -> {
                    long w = value(line);
                    if (w < 1 || w > LinkRates.WIDTH_ALL) {
                        throw error("width=" + w + ": allowed 1..31 (1x=1, 4x=2, 8x=4, 12x=8, 2x=16)");
                    }
                    width = (int) w;
                }
                case "speed" -> {
                    long s = value(line);
                    if (s < 1 || s > LinkRates.SPEED_ALL) {
                        throw error("speed=" + s + ": allowed 1..7 (SDR=1, DDR=2, QDR=4)");
                    }
                    speed = (int) s;
                }
                case "include", "do", "module", "extspeed", "pdebug" -> throw error("'" + key
                        + "' is an ibsim extension the loopback fabric does not support: allowed Switch, Hca, Ca, "
                        + "switchguid, caguid, hcaguids, sysimgguid, vendid, devid, width, speed");
                default -> {
                    if (line.startsWith("Rt")) {
                        throw error("routers ('Rt') are not supported: allowed Switch, Hca, Ca");
                    }
                    // ibsim/sim_net.c parse_netconf ignores any other line; so do we (ibnetdiscover headers).
                }
            }
        }

        /** sim_net.c parse_guidbase: "=V" sets the base and the next GUID, "+V" sets the next GUID to base + V. */
        private long[] guidBase(String line, long base) {
            int eq = line.indexOf('=');
            int plus = line.indexOf('+');
            if (eq < 0 && plus < 0) {
                throw error("'" + line + "': missing '=' or '+': allowed name=GUID or name+OFFSET");
            }
            boolean relative = eq < 0 || (plus >= 0 && plus < eq);
            long v = parseNumber(line.substring((relative ? plus : eq) + 1).split("[\\s(]", 2)[0], "GUID");
            return relative ? new long[] {base, base + v} : new long[] {v, v};
        }

        private long value(String line) {
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw error("'" + line + "': missing '=': allowed name=VALUE");
            }
            return parseNumber(line.substring(eq + 1).strip().split("[\\s(]", 2)[0], line.substring(0, eq).strip());
        }

        private int number(String s, String what) {
            long v = parseNumber(s, what);
            if (v > Integer.MAX_VALUE) {
                throw error(what + " " + s + " is too large");
            }
            return (int) v;
        }

        private long parseNumber(String s, String what) {
            try {
                if (s.startsWith("0x") || s.startsWith("0X")) {
                    return Long.parseUnsignedLong(s.substring(2), 16);
                }
                return Long.parseLong(s);
            } catch (NumberFormatException e) {
                throw error(what + " '" + s + "' is not a number: allowed decimal or 0x hexadecimal");
            }
        }

        private void cableAll() {
            for (PortLine pl : portLines) {
                if (!builder.has(pl.peer())) {
                    throw new NetFileException(file, pl.lineNumber(), "port " + pl.port() + " of \"" + pl.node()
                            + "\" is cabled to \"" + pl.peer() + "\", which no Switch or Hca record defines");
                }
                PortLine back = byEnd.get(pl.peer() + "[" + pl.peerPort() + "]");
                if (back == null || !back.peer().equals(pl.node()) || back.peerPort() != pl.port()) {
                    throw new NetFileException(file, pl.lineNumber(), "port " + pl.port() + " of \"" + pl.node()
                            + "\" is cabled to port " + pl.peerPort() + " of \"" + pl.peer() + "\", but "
                            + (back == null ? "that port declares no cable"
                                    : "that port declares \"" + back.peer() + "\"[" + back.peerPort() + "] (line "
                                            + back.lineNumber() + ")")
                            + ": both ends must name each other");
                }
                if (back.lineNumber() < pl.lineNumber()) {
                    continue; // cabled when its first end was read
                }
                if (back == pl) {
                    throw new NetFileException(file, pl.lineNumber(), "port " + pl.port() + " of \"" + pl.node()
                            + "\" is cabled to itself");
                }
                try {
                    builder.cable(pl.node(), pl.port(), pl.peer(), pl.peerPort());
                    int[] a = rates.get(pl.node() + "[" + pl.port() + "]");
                    int[] b = rates.get(back.node() + "[" + back.port() + "]");
                    builder.rates(pl.node(), pl.port(), a[0], a[1]);
                    builder.rates(back.node(), back.port(), b[0], b[1]);
                } catch (IllegalArgumentException e) {
                    throw new NetFileException(file, pl.lineNumber(), e.getMessage());
                }
            }
        }

        private NetFileException error(String message) {
            return new NetFileException(file, lineNumber, message);
        }
    }

    /**
     * Writes a topology in the net format, so that ibsim loads the same subnet: GUIDs are set with
     * {@code switchguid=}/{@code caguid=} before each record, descriptions as comments, rates with
     * {@code w=}/{@code s=}. An HCA whose port GUIDs are not node + p cannot be written.
     */
    public static String write(Topology topology) {
        StringBuilder out = new StringBuilder();
        for (Node n : topology.nodes()) {
            if (n.isSwitch()) {
                out.append(String.format("switchguid=0x%x%n", n.nodeGuid()));
            } else {
                for (Port p : n.ports()) {
                    if (p.guid() != n.nodeGuid() + p.number()) {
                        throw new IllegalArgumentException(String.format("%s port %d has GUID 0x%016x: the net format "
                                + "gives port p of an HCA the GUID node + p (0x%016x)", n, p.number(), p.guid(),
                                n.nodeGuid() + p.number()));
                    }
                }
                out.append(String.format("caguid=0x%x%n", n.nodeGuid()));
            }
            if (n.systemImageGuid() != n.nodeGuid()) {
                out.append(String.format("sysimgguid=0x%x%n", n.systemImageGuid()));
            }
            if (n.vendorId() != 0) {
                out.append(String.format("vendid=0x%x%n", n.vendorId()));
            }
            out.append(String.format("devid=0x%x%n", n.deviceId()));
            out.append(n.type().netFileKeyword()).append('\t').append(n.portCount()).append(" \"").append(n.name())
                    .append('"');
            if (!n.description().equals(n.name())) {
                out.append("\t# \"").append(n.description()).append('"');
            }
            out.append('\n');
            for (Port p : n.ports()) {
                Port peer = p.peer();
                if (peer == null) {
                    continue;
                }
                out.append('[').append(p.number()).append("]\t\"").append(peer.node().name()).append("\"[")
                        .append(peer.number()).append("]\tw=").append(p.linkWidthEnabled()).append(" s=")
                        .append(p.linkSpeedEnabled()).append('\n');
            }
            out.append('\n');
        }
        return out.toString();
    }
}
