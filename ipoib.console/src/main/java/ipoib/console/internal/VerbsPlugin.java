package ipoib.console.internal;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.JsonText;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Web Console's Verbs page: every verbs provider (loopback, hardware) with its status, its
 * devices and ports, GIDs and P_Keys, or the reason there are none; as JSON at
 * {@code ipoib-verbs.json}: {@code {"providers":[{"name","available","reason","ports":[..]}]}}.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + VerbsPlugin.LABEL,
        "felix.webconsole.title=Verbs",
        "felix.webconsole.category=IPoIB"})
public final class VerbsPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String LABEL = "ipoib-verbs";

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<VerbsProvider> providers;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        List<VerbsProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparing(VerbsProvider::name));
        if (request.getRequestURI().endsWith("/" + LABEL + ".json")) {
            List<Map<String, Object>> list = new ArrayList<>();
            for (VerbsProvider p : sorted) {
                Map<String, Object> provider = new LinkedHashMap<>();
                provider.put("name", p.name());
                provider.put("available", p.status().available());
                provider.put("reason", p.status().reason());
                provider.put("ports", ports(p).json());
                list.add(provider);
            }
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(JsonText.of(Map.of("providers", list)));
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        StringBuilder out = new StringBuilder();
        if (sorted.isEmpty()) {
            out.append("<p class='statline' id='verbs-none'>no verbs provider is registered</p>");
        }
        for (VerbsProvider p : sorted) {
            Html.heading(out, "Provider " + p.name());
            out.append("<p class='statline' id='verbs-status-").append(Html.esc(p.name())).append("'>")
                    .append(p.status().available() ? "available: " : "unavailable: ").append(Html.esc(p.status().reason()))
                    .append("</p>\n");
            ports(p).html(out);
        }
        response.getWriter().write(out.toString());
    }

    private static Table ports(VerbsProvider p) {
        List<List<Object>> rows = new ArrayList<>();
        for (Device d : p.devices()) {
            for (Port port : d.ports()) {
                PortAttributes a = port.attributes();
                List<String> gids = new ArrayList<>();
                for (int i = 0; i < Math.min(a.gidTableLength(), 4); i++) {
                    gids.add(String.valueOf(port.gid(i)));
                }
                rows.add(List.of(d.name(), d.nodeGuid(), port.number(), a.state(), a.lid(), a.smLid(), a.activeMtu(),
                        a.rate(), String.join(" ", gids), port.pkeyTable()));
            }
        }
        return new Table("verbs-ports-" + p.name(), "ports", Table.columns("device", "Device", "nodeGuid", "Node GUID",
                "port", "Port", "state", "State", "lid", "LID", "smLid", "SM LID", "mtu", "MTU", "rate", "Rate",
                "gids", "GIDs", "pkeys", "P_Keys"), rows, "no devices: " + p.status().reason());
    }
}
