package ipoib.verbs.loopback.console;

import ipoib.verbs.loopback.fabric.FaultKind;
import ipoib.verbs.loopback.internal.FabricCommands;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * The Web Console's Fabric page: the picture of the loopback subnet, the SA statistics, the
 * fabric counters, and the fault controls as forms (the {@code fabric:} commands' equivalents,
 * run through the same code). Forms POST with the console's anti-forgery token, which the
 * console's access policy checks before the request gets here.
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
            response.getWriter().write(SubnetPicture.svg(commands.fabric()));
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write(page(request, request.getParameter("result")));
    }

    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String action = request.getParameter("action");
        String result;
        try {
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

    private static String param(HttpServletRequest request, String name) {
        String v = request.getParameter(name);
        if (v == null || v.isBlank()) {
            throw new IllegalArgumentException("the form field '" + name + "' is required");
        }
        return v.strip();
    }

    private String page(HttpServletRequest request, String result) {
        Object token = request.getAttribute(TOKEN_ATTRIBUTE);
        String hidden = "<input type='hidden' name='" + TOKEN_FIELD + "' value='"
                + SubnetPicture.esc(token == null ? "" : token) + "'>";
        StringBuilder out = new StringBuilder();
        if (result != null && !result.isBlank()) {
            out.append("<pre id='fabric-result' class='statline'>").append(SubnetPicture.esc(result)).append("</pre>\n");
        }
        out.append("<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>Subnet</h2>\n").append(SubnetPicture.svg(commands.fabric()));
        out.append("<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>Faults</h2>\n<pre id='fabric-faults'>").append(SubnetPicture.esc(commands.faults())).append("</pre>\n");
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
        out.append("<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>Subnet administrator</h2>\n<pre id='fabric-sa'>").append(SubnetPicture.esc(commands.sa())).append("</pre>\n");
        out.append("<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>Fabric counters</h2>\n<pre id='fabric-stats'>").append(SubnetPicture.esc(commands.stats())).append("</pre>\n");
        out.append("<h2 style='font-size:1.2em;font-weight:bold;margin:1em 0 .4em'>Multicast groups</h2>\n<pre id='fabric-groups'>").append(SubnetPicture.esc(commands.groups())).append("</pre>\n");
        return out.toString();
    }
}
