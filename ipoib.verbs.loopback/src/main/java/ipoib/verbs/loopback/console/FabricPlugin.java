package ipoib.verbs.loopback.console;

import ipoib.runtime.JsonText;
import ipoib.verbs.loopback.fabric.FaultKind;
import ipoib.verbs.loopback.fabric.LoopPort;
import ipoib.verbs.loopback.fabric.PortStatistics;
import ipoib.verbs.loopback.internal.FabricCommands;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Web Console's Fabric page: the picture of the loopback subnet, every cabled port's state,
 * faults and counters, the SA statistics, the fabric counters, and the fault controls as forms
 * (the {@code fabric:} commands' equivalents, run through the same code). Forms POST with the
 * console's anti-forgery token, which the console's access policy checks before the request gets
 * here; taking a port down, resetting it and an SM change are asked for once more on a page of
 * their own before they are done. The page's data is JSON at {@code ipoib-fabric.json}, from
 * which the console's script (bundle ipoib.console) redraws the page every 2 s.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + FabricPlugin.LABEL,
        "felix.webconsole.title=Fabric",
        "felix.webconsole.category=IPoIB"})
public final class FabricPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String LABEL = "ipoib-fabric";
    /** Set by the console's access policy (bundle ipoib.console). */
    static final String TOKEN_ATTRIBUTE = "ipoib.console.token";
    static final String TOKEN_FIELD = "ipoib_token";
    /** The form field that confirms a disruptive action. */
    static final String CONFIRMED = "confirmed";
    private static final String HEADING = "<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>";

    private final transient FabricCommands commands;

    @Activate
    public FabricPlugin(@Reference FabricCommands commands) {
        this.commands = commands;
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "" : request.getPathInfo();
        if (path.endsWith("/subnet.svg")) {
            response.setContentType("image/svg+xml;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(SubnetPicture.svg(commands.fabric()));
            return;
        }
        if (request.getRequestURI().endsWith("/" + LABEL + ".json")) {
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(json());
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write(page(request, request.getParameter("result")));
    }

    /**
     * The page's data: {@code {"ports":[..],"faults":text,"sa":text,"stats":text,"groups":text}},
     * the texts as the {@code fabric:} commands print them.
     */
    String json() {
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("ports", ports());
        out.put("faults", commands.faults());
        out.put("sa", commands.sa());
        out.put("stats", commands.stats());
        out.put("groups", commands.groups());
        return JsonText.of(out);
    }

    /** Every cabled port: its name, state, faults (HCA ports), traffic and drops. */
    private List<Map<String, Object>> ports() {
        List<Map<String, Object>> out = new ArrayList<>();
        for (Node n : commands.fabric().topology().nodes()) {
            for (Port p : n.ports()) {
                if (p.number() == 0 || p.peer() == null) {
                    continue;
                }
                LoopPort hca = commands.fabric().hcaPort(p);
                Map<String, Object> row = new LinkedHashMap<>();
                row.put("port", hca != null ? hca.toString() : n.name() + "/" + p.number());
                row.put("state", p.state());
                row.put("lid", p.lidPort().lid());
                row.put("faults", hca == null ? "" : SubnetPicture.faultText(commands.fabric().faults(hca)));
                Map<String, Long> drops = new LinkedHashMap<>();
                PortStatistics.of(p).forEach((k, v) -> {
                    if (k.startsWith("drop_")) {
                        if (v != 0) {
                            drops.put(k.substring(5), v);
                        }
                    } else {
                        row.put(k, v);
                    }
                });
                if (hca != null && hca.receiveBufferDrops() != 0) {
                    drops.put("no_receive_buffer", hca.receiveBufferDrops());
                }
                row.put("drops", drops);
                out.add(row);
            }
        }
        return out;
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String action = request.getParameter("action");
        String result;
        try {
            String question = question(request, action == null ? "" : action);
            if (question != null && !"yes".equals(request.getParameter(CONFIRMED))) {
                response.setContentType("text/html;charset=UTF-8");
                response.getWriter().write(confirmation(request, action, question));
                return;
            }
            result = switch (action == null ? "" : action) {
                case "fault" -> {
                    List<String> args = new ArrayList<>();
                    args.add(param(request, "kind"));
                    args.add(param(request, "value"));
                    String port = request.getParameter("port");
                    if (port != null && !port.isBlank()) {
                        args.add(port.strip());
                    }
                    yield commands.fault(args.toArray(String[]::new));
                }
                case "clear" -> commands.clear();
                case "down" -> commands.down(param(request, "port"));
                case "up" -> commands.up(param(request, "port"));
                case "reset" -> commands.reset(param(request, "port"));
                case "smchange" -> commands.smchange();
                default -> throw new IllegalArgumentException("unknown action '" + action
                        + "'; allowed fault, clear, down, up, reset, smchange");
            };
        } catch (IllegalArgumentException | IllegalStateException e) {
            response.setStatus(400);
            result = e.getMessage();
        }
        if (response.getStatus() == 400) {
            response.setContentType("text/html;charset=UTF-8");
            response.getWriter().write(page(request, result));
            return;
        }
        // Post/redirect/get: a reload does not repeat the action.
        response.sendRedirect(request.getRequestURI() + "?result=" + java.net.URLEncoder.encode(result,
                java.nio.charset.StandardCharsets.UTF_8));
    }

    /** What a disruptive action is about to do, or null for an action that needs no confirmation. */
    private static String question(HttpServletRequest request, String action) {
        return switch (action) {
            case "down" -> "Take port " + param(request, "port") + " down? The link goes down at both ends; "
                    + "its interfaces lose the fabric until the port is brought up.";
            case "reset" -> "Reset port " + param(request, "port") + "? Its queue pairs fail, it goes down and comes "
                    + "back; its interfaces start again with new QPNs.";
            case "smchange" -> "Change the subnet manager? Every port sees an SM change and every interface "
                    + "joins its groups and resolves its paths again.";
            default -> null;
        };
    }

    /**
     * The confirmation: the question, a Confirm button (focused: Enter confirms) that posts the
     * same fields with {@code confirmed=yes}, and a Cancel link back to the page (nothing done).
     */
    private String confirmation(HttpServletRequest request, String action, String question) {
        StringBuilder out = new StringBuilder();
        out.append(HEADING).append("Confirm</h2>\n<form method='post' id='fabric-confirm-form' role='alertdialog' "
                + "aria-labelledby='fabric-confirm-question'>").append(hidden(request))
                .append("<p id='fabric-confirm-question' class='statline'>").append(SubnetPicture.esc(question))
                .append("</p><input type='hidden' name='action' value='").append(SubnetPicture.esc(action)).append("'>");
        String port = request.getParameter("port");
        if (port != null) {
            out.append("<input type='hidden' name='port' value='").append(SubnetPicture.esc(port.strip())).append("'>");
        }
        out.append("<input type='hidden' name='").append(CONFIRMED).append("' value='yes'>")
                .append("<input type='submit' id='fabric-confirm' value='Confirm' autofocus> ")
                .append("<a id='fabric-cancel' href='").append(SubnetPicture.esc(request.getRequestURI()))
                .append("'>Cancel</a></form>\n")
                // autofocus alone waits for the window to have the focus; the button takes it at once.
                .append("<script>document.getElementById('fabric-confirm').focus();</script>\n");
        return out.toString();
    }

    private static String param(HttpServletRequest request, String name) {
        String v = request.getParameter(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("the form field '" + name + "' is required");
        }
        return v.strip();
    }

    private static String hidden(HttpServletRequest request) {
        Object token = request.getAttribute(TOKEN_ATTRIBUTE);
        return "<input type='hidden' name='" + TOKEN_FIELD + "' value='"
                + SubnetPicture.esc(token == null ? "" : token) + "'>";
    }

    private String page(HttpServletRequest request, String result) {
        String hidden = hidden(request);
        Object app = request.getAttribute("felix.webconsole.appRoot");
        String appRoot = app != null ? app.toString() : request.getContextPath();
        StringBuilder out = new StringBuilder();
        // Redrawn every 2 s from ipoib-fabric.json and subnet.svg by the console's live.js.
        out.append("<div id='ipoib-refresh' data-source='").append(SubnetPicture.esc(appRoot)).append('/').append(LABEL)
                .append(".json' hidden></div>\n");
        if (result != null && !result.isBlank()) {
            out.append("<pre id='fabric-result' class='statline'>").append(SubnetPicture.esc(result)).append("</pre>\n");
        }
        out.append(HEADING).append("Subnet</h2>\n<div id='fabric-picture-box' data-live-svg='")
                .append(SubnetPicture.esc(appRoot)).append('/').append(LABEL).append("/subnet.svg'>")
                .append(SubnetPicture.svg(commands.fabric())).append("</div>\n");
        out.append(HEADING).append("Ports</h2>\n");
        portsTable(out);
        out.append(HEADING).append("Faults</h2>\n<pre id='fabric-faults' data-live-text='faults'>")
                .append(SubnetPicture.esc(commands.faults())).append("</pre>\n");
        out.append("<form method='post' id='fabric-fault-form'>").append(hidden)
                .append("<input type='hidden' name='action' value='fault'>kind <select name='kind'>");
        for (FaultKind k : FaultKind.values()) {
            out.append("<option>").append(k.word()).append("</option>");
        }
        out.append("</select> value <input name='value' size='6' value='10'> port (empty: every port; e.g. loop0/1) "
                + "<input name='port' size='10'> <input type='submit' value='Set fault'></form>\n");
        out.append("<form method='post' id='fabric-clear-form'>").append(hidden)
                .append("<input type='hidden' name='action' value='clear'><input type='submit' value='Clear every fault'></form>\n");
        out.append("<form method='post' id='fabric-port-form'>").append(hidden)
                .append("port <input name='port' size='10' value='loop0/1'> <select name='action'><option>down</option>"
                        + "<option>up</option><option>reset</option></select> <input type='submit' value='Apply'></form>\n");
        out.append("<form method='post' id='fabric-sm-form'>").append(hidden)
                .append("<input type='hidden' name='action' value='smchange'><input type='submit' value='SM change'></form>\n");
        out.append(HEADING).append("Subnet administrator</h2>\n<pre id='fabric-sa' data-live-text='sa'>")
                .append(SubnetPicture.esc(commands.sa())).append("</pre>\n");
        out.append(HEADING).append("Fabric counters</h2>\n<pre id='fabric-stats' data-live-text='stats'>")
                .append(SubnetPicture.esc(commands.stats())).append("</pre>\n");
        out.append(HEADING).append("Multicast groups</h2>\n<pre id='fabric-groups' data-live-text='groups'>")
                .append(SubnetPicture.esc(commands.groups())).append("</pre>\n");
        out.append("<script src='").append(SubnetPicture.esc(appRoot)).append("/ipoib/live.js'></script>\n");
        return out.toString();
    }

    private static final List<String> COLUMNS = List.of("port", "state", "lid", "faults", "xmit_packets",
            "rcv_packets", "xmit_octets", "rcv_octets", "drops");

    /** The ports as a table the console's script redraws from the JSON's "ports". */
    private void portsTable(StringBuilder out) {
        out.append("<table class='tablesorter nicetable' id='fabric-ports' data-live='ports' data-columns='")
                .append(String.join(",", COLUMNS)).append("' data-empty='no cabled ports'><thead><tr>");
        for (String heading : List.of("Port", "State", "LID", "Faults", "TX packets", "RX packets", "TX octets",
                "RX octets", "Drops")) {
            out.append("<th>").append(heading).append("</th>");
        }
        out.append("</tr></thead><tbody>\n");
        for (Map<String, Object> row : ports()) {
            out.append("<tr>");
            for (String c : COLUMNS) {
                Object v = row.get(c);
                String text = v instanceof Map<?, ?> m ? pairs(m) : String.valueOf(v);
                out.append("<td>").append(SubnetPicture.esc(text)).append("</td>");
            }
            out.append("</tr>\n");
        }
        out.append("</tbody></table>\n");
    }

    private static String pairs(Map<?, ?> map) {
        StringBuilder out = new StringBuilder();
        map.forEach((k, v) -> out.append(out.isEmpty() ? "" : "  ").append(k).append('=').append(v));
        return out.toString();
    }
}
