package ipoib.verbs.loopback.console;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.PKey;
import ipoib.api.verbs.PortAttributes;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.verbs.loopback.fabric.Faults;
import ipoib.verbs.loopback.fabric.LoopDevice;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.MulticastGroup;
import ipoib.verbs.loopback.fabric.SubnetManager;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Draws the loopback subnet as SVG: the subnet manager, a legend, the HCA ports in rows of at
 * most {@value #PORTS_PER_ROW} (number, name, LID, state, faults and drops), then one row per
 * partition (F full member, L limited member) and one row per multicast group (F full, N
 * non-member, S send-only: non-member or full member) with a column for every port, headed by
 * the port's number. The width stays under {@value #MAX_WIDTH} px whatever the number of ports:
 * the membership columns narrow as ports are added.
 *
 * <p>A port not Active is drawn red; a port with an injected fault amber and dashed, the faults
 * written in it; a port that dropped datagrams for want of posted receive buffers gets a purple
 * mark and the count.
 */
final class SubnetPicture {
    static final int MAX_WIDTH = 1400;
    static final int PORTS_PER_ROW = 8;
    private static final int PORT_WIDTH = 150;
    private static final int PORT_STEP = 160;
    private static final int PORT_HEIGHT = 58;
    private static final int PORT_ROW = 84;
    private static final int PORTS_TOP = 110;
    private static final int LEFT = 260;
    private static final int MATRIX_WIDTH = 1080;
    private static final int ROW = 22;

    static final String ACTIVE = "#2e7d32";
    static final String DOWN = "#c62828";
    static final String FAULT = "#ef6c00";
    static final String NO_RX_BUFFER = "#6a1b9a";

    private SubnetPicture() {}

    /** The width of one membership column for {@code ports} ports: between 16 and 120 px. */
    static int column(int ports) {
        return Math.max(16, Math.min(120, MATRIX_WIDTH / Math.max(1, ports)));
    }

    static String svg(Fabric fabric) {
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : fabric.devices()) {
            ports.addAll(d.loopPorts());
        }
        List<PKey> partitions = partitions(ports);
        List<MulticastGroup> groups = new ArrayList<>(fabric.subnetManager().groups());
        groups.sort(Comparator.comparing(g -> g.mlid().value()));
        int column = column(ports.size());
        int portRows = Math.max(1, (ports.size() + PORTS_PER_ROW - 1) / PORTS_PER_ROW);
        int gridWidth = 30 + Math.min(Math.max(1, ports.size()), PORTS_PER_ROW) * PORT_STEP;
        int width = Math.max(760, Math.max(gridWidth, LEFT + Math.max(1, ports.size()) * column + 20));
        int top = PORTS_TOP + portRows * PORT_ROW;
        int height = top + 60 + (partitions.size() + Math.max(1, groups.size()) + 2) * ROW + 20;
        StringBuilder out = new StringBuilder();
        out.append("<svg id='fabric-picture' xmlns='http://www.w3.org/2000/svg' width='").append(width)
                .append("' height='").append(height).append("' viewBox='0 0 ").append(width).append(' ').append(height)
                .append("' font-family='sans-serif' font-size='12' role='img' aria-label='loopback subnet'>\n");
        out.append("<rect width='100%' height='100%' fill='#fcfcfc' stroke='#ddd'/>\n");
        out.append("<g id='fabric-sm'><rect x='20' y='15' width='200' height='44' rx='6' fill='#fff3cd' stroke='#b8860b'/>")
                .append("<text x='30' y='33' font-weight='bold'>Subnet manager</text>")
                .append("<text x='30' y='50'>SM LID ").append(SubnetManager.SM_LID).append(" · generation ")
                .append(fabric.subnetManager().generation()).append("</text></g>\n");
        legend(out, 240, 15);
        // The subnet: a trunk down the left, a bus above each row of ports.
        out.append("<line x1='12' y1='37' x2='20' y2='37' stroke='#555'/><line x1='12' y1='37' x2='12' y2='")
                .append(PORTS_TOP - 15 + (portRows - 1) * PORT_ROW).append("' stroke='#555' stroke-width='3'/>\n");
        for (int r = 0; r < portRows; r++) {
            int busY = PORTS_TOP - 15 + r * PORT_ROW;
            int inRow = Math.min(PORTS_PER_ROW, Math.max(1, ports.size() - r * PORTS_PER_ROW));
            out.append("<line x1='12' y1='").append(busY).append("' x2='").append(20 + inRow * PORT_STEP)
                    .append("' y2='").append(busY).append("' stroke='#555' stroke-width='3'/>\n");
        }
        int index = 0;
        for (LoopDevice d : fabric.devices()) {
            out.append("<g class='fabric-hca' id='fabric-hca-").append(esc(d.name())).append("'><title>")
                    .append(esc(d.name())).append(" node GUID ").append(esc(d.nodeGuid())).append("</title>\n");
            for (LoopPort p : d.loopPorts()) {
                port(out, fabric, d, p, index++);
            }
            out.append("</g>\n");
        }
        int y = top + 10;
        // Column heads: the ports' numbers, as written in their boxes.
        out.append("<g id='fabric-columns'>");
        for (int i = 0; i < ports.size(); i++) {
            out.append("<text x='").append(LEFT + i * column + column / 2).append("' y='").append(y)
                    .append("' font-size='9' fill='#555' text-anchor='middle'>").append(i + 1).append("</text>");
        }
        out.append("</g>\n");
        y += 16;
        out.append("<text x='20' y='").append(y).append("' font-weight='bold'>Partitions (F full, L limited)</text>\n");
        for (PKey key : partitions) {
            y += ROW;
            out.append("<g class='fabric-partition' id='fabric-partition-").append(String.format("%04x", key.base()))
                    .append("'><text x='30' y='").append(y).append("'>P_Key ").append(String.format("0x%04x", key.base()))
                    .append("</text>");
            for (int i = 0; i < ports.size(); i++) {
                var slot = ports.get(i).pkeyTable().indexOfPartition(key);
                if (slot.isPresent()) {
                    boolean full = ports.get(i).pkeyTable().get(slot.getAsInt()).map(PKey::isFullMember).orElse(false);
                    cell(out, LEFT + i * column + column / 2, y, full ? "F" : "L", full ? ACTIVE : FAULT);
                }
            }
            out.append("</g>\n");
        }
        y += ROW + 10;
        out.append("<text x='20' y='").append(y).append("' font-weight='bold'>Multicast groups (F full, N non-member, "
                + "S send-only)</text>\n");
        if (groups.isEmpty()) {
            y += ROW;
            out.append("<text x='30' y='").append(y).append("' fill='#777'>no groups</text>\n");
        }
        for (MulticastGroup g : groups) {
            y += ROW;
            out.append("<g class='fabric-group' id='fabric-group-").append(g.mlid().value()).append("'><text x='30' y='")
                    .append(y).append("' font-size='10'>MLID ").append(esc(g.mlid())).append("  ")
                    .append(esc(shortMgid(g.mgid().toString()))).append("<title>").append(esc(g.mgid())).append("</title></text>");
            Map<Gid, Integer> members = g.members();
            for (int i = 0; i < ports.size(); i++) {
                Integer bits = members.get(ports.get(i).gid(0));
                if (bits != null) {
                    cell(out, LEFT + i * column + column / 2, y, states(bits), "#1a73e8");
                }
            }
            out.append("</g>\n");
        }
        out.append("</svg>\n");
        return out.toString();
    }

    /** One port's box in its row: the {@code index}th port, numbered from 1. */
    private static void port(StringBuilder out, Fabric fabric, LoopDevice d, LoopPort p, int index) {
        PortAttributes a = p.attributes();
        boolean active = a.isActive();
        Faults faults = fabric.faults(p);
        long noBuffer = p.receiveBufferDrops();
        int x = 20 + (index % PORTS_PER_ROW) * PORT_STEP;
        int y = PORTS_TOP + (index / PORTS_PER_ROW) * PORT_ROW;
        String stroke = !active ? DOWN : faults.any() ? FAULT : ACTIVE;
        String classes = "fabric-port " + (active ? "port-active" : "port-down") + (faults.any() ? " port-fault" : "")
                + (noBuffer > 0 ? " port-no-rx-buffer" : "");
        out.append("<g class='").append(classes).append("' id='fabric-port-").append(esc(d.name())).append('-')
                .append(p.number()).append("'><line x1='").append(x + 60).append("' y1='").append(y - 15)
                .append("' x2='").append(x + 60).append("' y2='").append(y).append("' stroke='").append(stroke)
                .append("' stroke-width='2'").append(faults.any() ? " stroke-dasharray='4 3'" : "").append("/>")
                .append("<rect x='").append(x).append("' y='").append(y).append("' width='").append(PORT_WIDTH)
                .append("' height='").append(PORT_HEIGHT).append("' rx='4' fill='").append(active ? "#e8f5e9" : "#ffebee")
                .append("' stroke='").append(stroke).append("' stroke-width='").append(faults.any() ? 2.5 : 1)
                .append(faults.any() ? "' stroke-dasharray='6 3" : "").append("'/>")
                .append("<text x='").append(x + 6).append("' y='").append(y + 15).append("' font-weight='bold'>")
                .append(index + 1).append("  ").append(esc(d.name())).append('/').append(p.number())
                .append("</text><text x='").append(x + 90).append("' y='").append(y + 15).append("' font-size='11'>LID ")
                .append(esc(a.lid())).append("</text>")
                .append("<text x='").append(x + 6).append("' y='").append(y + 31).append("' font-size='11'")
                .append(active ? "" : " fill='" + DOWN + "' font-weight='bold'").append('>').append(esc(a.state()))
                .append(" · MTU ").append(esc(a.activeMtu())).append("</text>");
        if (faults.any()) {
            out.append("<text class='port-faults' x='").append(x + 6).append("' y='").append(y + 47)
                    .append("' font-size='11' fill='").append(FAULT).append("' font-weight='bold'>")
                    .append(esc(faultText(faults))).append("</text>");
        }
        if (noBuffer > 0) {
            out.append("<circle cx='").append(x + PORT_WIDTH - 10).append("' cy='").append(y + 10)
                    .append("' r='6' fill='").append(NO_RX_BUFFER).append("'/><text class='port-no-rx-buffer-count' x='")
                    .append(x + PORT_WIDTH - 6).append("' y='").append(y + PORT_HEIGHT - 4)
                    .append("' font-size='10' text-anchor='end' fill='").append(NO_RX_BUFFER).append("'>")
                    .append(noBuffer).append(" no rx buffer</text>");
        }
        out.append("<title>").append(esc(d.name())).append('/').append(p.number()).append(' ').append(esc(a.state()))
                .append(faults.any() ? "; faults " + esc(faultText(faults)) : "")
                .append(noBuffer > 0 ? "; " + noBuffer + " datagrams dropped: no receive buffer posted" : "")
                .append("</title></g>\n");
    }

    private static void legend(StringBuilder out, int x, int y) {
        out.append("<g id='fabric-legend' font-size='11'>")
                .append(legendBox(x, y, ACTIVE, "#e8f5e9", false)).append(legendText(x + 22, y + 10, "Active"))
                .append(legendBox(x + 90, y, DOWN, "#ffebee", false)).append(legendText(x + 112, y + 10, "down (not Active)"))
                .append(legendBox(x + 230, y, FAULT, "#e8f5e9", true)).append(legendText(x + 252, y + 10, "fault injected"))
                .append("<circle cx='").append(x + 7).append("' cy='").append(y + 30).append("' r='6' fill='")
                .append(NO_RX_BUFFER).append("'/>")
                .append(legendText(x + 22, y + 34, "dropped: no receive buffer posted (count)"))
                .append("</g>\n");
    }

    private static String legendBox(int x, int y, String stroke, String fill, boolean dashed) {
        return "<rect x='" + x + "' y='" + y + "' width='16' height='12' rx='2' fill='" + fill + "' stroke='" + stroke
                + "'" + (dashed ? " stroke-width='2.5' stroke-dasharray='6 3'" : "") + "/>";
    }

    private static String legendText(int x, int y, String text) {
        return "<text x='" + x + "' y='" + y + "'>" + esc(text) + "</text>";
    }

    /** The faults set on a port, e.g. {@code loss 30% · delay 5ms}. */
    static String faultText(Faults f) {
        List<String> parts = new ArrayList<>();
        if (f.lossPercent() > 0) {
            parts.add("loss " + f.lossPercent() + "%");
        }
        if (f.duplicatePercent() > 0) {
            parts.add("duplicate " + f.duplicatePercent() + "%");
        }
        if (f.reorderPercent() > 0) {
            parts.add("reorder " + f.reorderPercent() + "%");
        }
        if (f.delayMillis() > 0) {
            parts.add("delay " + f.delayMillis() + "ms");
        }
        if (f.corruptPercent() > 0) {
            parts.add("corrupt " + f.corruptPercent() + "%");
        }
        return String.join(" · ", parts);
    }

    private static void cell(StringBuilder out, int x, int y, String text, String colour) {
        out.append("<circle cx='").append(x).append("' cy='").append(y - 4).append("' r='8' fill='").append(colour)
                .append("' opacity='0.15'/><text x='").append(x).append("' y='").append(y)
                .append("' text-anchor='middle' fill='").append(colour).append("' font-weight='bold'>")
                .append(esc(text)).append("</text>");
    }

    private static String states(int bits) {
        StringBuilder s = new StringBuilder();
        if ((bits & JoinState.FULL_MEMBER.bit()) != 0) {
            s.append('F');
        }
        if ((bits & JoinState.NON_MEMBER.bit()) != 0) {
            s.append('N');
        }
        // The legend's S is sending only, whether as a non-member or as a full member (bit 0x8).
        if ((bits & (JoinState.SEND_ONLY_NON_MEMBER.bit() | JoinState.SEND_ONLY_FULL_MEMBER.bit())) != 0) {
            s.append('S');
        }
        return s.toString();
    }

    private static String shortMgid(String mgid) {
        return mgid.length() > 30 ? mgid.substring(0, 14) + "…" + mgid.substring(mgid.length() - 14) : mgid;
    }

    private static List<PKey> partitions(List<LoopPort> ports) {
        TreeSet<Integer> bases = new TreeSet<>();
        for (LoopPort p : ports) {
            for (PKey k : p.pkeyTable().keys()) {
                if (k.base() != 0) {
                    bases.add(k.base());
                }
            }
        }
        List<PKey> out = new ArrayList<>();
        for (int b : bases) {
            out.add(PKey.of(b));
        }
        return out;
    }

    static String esc(Object value) {
        return String.valueOf(value).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
                .replace("'", "&#39;").replace("\"", "&quot;");
    }
}
