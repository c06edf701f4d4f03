package ipoib.verbs.loopback.console;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.PKey;
import ipoib.api.verbs.PortAttributes;
import ipoib.verbs.loopback.fabric.Fabric;
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
 * Draws the loopback subnet as SVG: the subnet manager, the HCAs with their ports (LID, state),
 * then one row per partition (F full member, L limited member) and one row per multicast group
 * (F full, N non-member, S send-only: non-member or full member) with a column for every port.
 */
final class SubnetPicture {
    private static final int COLUMN = 170;
    private static final int LEFT = 260;
    private static final int ROW = 22;

    private SubnetPicture() {}

    static String svg(Fabric fabric) {
        List<LoopPort> ports = new ArrayList<>();
        for (LoopDevice d : fabric.devices()) {
            ports.addAll(d.loopPorts());
        }
        List<PKey> partitions = partitions(ports);
        List<MulticastGroup> groups = new ArrayList<>(fabric.subnetManager().groups());
        groups.sort(Comparator.comparing(g -> g.mlid().value()));
        int width = LEFT + Math.max(1, ports.size()) * COLUMN + 20;
        int top = 190;
        int height = top + 40 + (partitions.size() + groups.size() + 2) * ROW + 20;
        StringBuilder out = new StringBuilder();
        out.append("<svg id='fabric-picture' xmlns='http://www.w3.org/2000/svg' width='").append(width)
                .append("' height='").append(height).append("' viewBox='0 0 ").append(width).append(' ').append(height)
                .append("' font-family='sans-serif' font-size='12' role='img' aria-label='loopback subnet'>\n");
        out.append("<rect width='100%' height='100%' fill='#fcfcfc' stroke='#ddd'/>\n");
        // The subnet manager and the subnet "bus".
        out.append("<g id='fabric-sm'><rect x='20' y='15' width='200' height='44' rx='6' fill='#fff3cd' stroke='#b8860b'/>")
                .append("<text x='30' y='33' font-weight='bold'>Subnet manager</text>")
                .append("<text x='30' y='50'>SM LID ").append(SubnetManager.SM_LID).append(" · generation ")
                .append(fabric.subnetManager().generation()).append("</text></g>\n");
        out.append("<line x1='120' y1='59' x2='120' y2='80' stroke='#555'/>");
        out.append("<line x1='20' y1='80' x2='").append(width - 20).append("' y2='80' stroke='#555' stroke-width='3'/>\n");
        out.append("<text x='230' y='74' fill='#555'>subnet</text>\n");
        int column = 0;
        for (LoopDevice d : fabric.devices()) {
            List<LoopPort> devicePorts = d.loopPorts();
            int x = LEFT + column * COLUMN;
            int w = devicePorts.size() * COLUMN - 10;
            out.append("<g class='fabric-hca' id='fabric-hca-").append(esc(d.name())).append("'>")
                    .append("<rect x='").append(x).append("' y='95' width='").append(w)
                    .append("' height='28' rx='4' fill='#e8f0fe' stroke='#1a73e8'/>")
                    .append("<text x='").append(x + 6).append("' y='113' font-weight='bold'>").append(esc(d.name()))
                    .append("</text><text x='").append(x + 50).append("' y='113' font-size='9' fill='#555'>")
                    .append(esc(d.nodeGuid())).append("</text><title>node GUID ").append(esc(d.nodeGuid()))
                    .append("</title></g>\n");
            for (LoopPort p : devicePorts) {
                PortAttributes a = p.attributes();
                int px = LEFT + column * COLUMN;
                boolean active = a.isActive();
                out.append("<g class='fabric-port' id='fabric-port-").append(esc(d.name())).append('-').append(p.number())
                        .append("'><line x1='").append(px + 60).append("' y1='80' x2='").append(px + 60)
                        .append("' y2='95' stroke='").append(active ? "#2e7d32" : "#c62828").append("' stroke-width='2'/>")
                        .append("<line x1='").append(px + 60).append("' y1='123' x2='").append(px + 60)
                        .append("' y2='130' stroke='").append(active ? "#2e7d32" : "#c62828").append("' stroke-width='2'/>")
                        .append("<rect x='").append(px).append("' y='130' width='").append(COLUMN - 10)
                        .append("' height='44' rx='4' fill='").append(active ? "#e8f5e9" : "#ffebee").append("' stroke='")
                        .append(active ? "#2e7d32" : "#c62828").append("'/>")
                        .append("<text x='").append(px + 6).append("' y='147'>port ").append(p.number()).append(" · LID ")
                        .append(esc(a.lid())).append("</text>")
                        .append("<text x='").append(px + 6).append("' y='165' font-size='11'>").append(esc(a.state()))
                        .append(" · MTU ").append(esc(a.activeMtu())).append("</text></g>\n");
                column++;
            }
        }
        int y = top + 20;
        out.append("<text x='20' y='").append(y).append("' font-weight='bold'>Partitions (F full, L limited)</text>\n");
        for (PKey key : partitions) {
            y += ROW;
            out.append("<g class='fabric-partition' id='fabric-partition-").append(String.format("%04x", key.base()))
                    .append("'><text x='30' y='").append(y).append("'>P_Key ").append(String.format("0x%04x", key.base()))
                    .append("</text>");
            for (int i = 0; i < ports.size(); i++) {
                var index = ports.get(i).pkeyTable().indexOfPartition(key);
                if (index.isPresent()) {
                    boolean full = ports.get(i).pkeyTable().get(index.getAsInt()).map(PKey::isFullMember).orElse(false);
                    cell(out, i, y, full ? "F" : "L", full ? "#2e7d32" : "#ef6c00");
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
                    cell(out, i, y, states(bits), "#1a73e8");
                }
            }
            out.append("</g>\n");
        }
        out.append("</svg>\n");
        return out.toString();
    }

    private static void cell(StringBuilder out, int column, int y, String text, String colour) {
        int x = LEFT + column * COLUMN + 55;
        out.append("<circle cx='").append(x + 5).append("' cy='").append(y - 4).append("' r='8' fill='").append(colour)
                .append("' opacity='0.15'/><text x='").append(x).append("' y='").append(y).append("' fill='").append(colour)
                .append("' font-weight='bold'>").append(esc(text)).append("</text>");
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
