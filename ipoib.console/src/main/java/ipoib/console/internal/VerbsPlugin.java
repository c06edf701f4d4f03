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
 * {@code ipoib-verbs.json}: {@code {"providers":[{"name","available","reason","ports":[..]}]}},
 * from which live.js redraws the page's two tables (providers, and every provider's ports).
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
        Map<String, Object> data = data();
        if (request.getRequestURI().endsWith("/" + LABEL + ".json")) {
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(JsonText.of(data));
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        StringBuilder out = new StringBuilder();
        Html.liveScript(out, request, LABEL);
        Html.heading(out, "Providers");
        Table.of("verbs-providers", "providers", Table.columns("name", "Provider", "available", "Available",
                "reason", "Status"), data, "no verbs provider is registered", null).html(out);
        Html.heading(out, "Ports");
        Table.of("verbs-ports", "providers/ports", Table.columns("name", "Provider", "device", "Device",
                "nodeGuid", "Node GUID", "port", "Port", "state", "State", "lid", "LID", "smLid", "SM LID",
                "mtu", "MTU", "rate", "Rate", "gids", "GIDs", "pkeys", "P_Keys"), data,
                "no devices (the providers' status says why)", null).html(out);
        response.getWriter().write(out.toString());
    }

    /** The page's data, {@code {"providers":[{"name","available","reason","ports":[..]}]}}, providers by name. */
    private Map<String, Object> data() {
        List<VerbsProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparing(VerbsProvider::name));
        List<Map<String, Object>> list = new ArrayList<>();
        for (VerbsProvider p : sorted) {
            Map<String, Object> provider = new LinkedHashMap<>();
            provider.put("name", p.name());
            provider.put("available", p.status().available());
            provider.put("reason", p.status().reason());
            provider.put("ports", ports(p).json());
            list.add(provider);
        }
        return Map.of("providers", list);
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
