package ipoib.console.internal;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.VerbsProvider;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Web Console's Verbs page: every verbs provider (loopback, hardware) with its status, its
 * devices and ports, GIDs and P_Keys, or the reason there are none.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=ipoib-verbs",
        "felix.webconsole.title=Verbs",
        "felix.webconsole.category=IPoIB"})
public final class VerbsPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<VerbsProvider> providers;

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/html;charset=UTF-8");
        StringBuilder out = new StringBuilder();
        List<VerbsProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparing(VerbsProvider::name));
        if (sorted.isEmpty()) {
            out.append("<p class='statline' id='verbs-none'>no verbs provider is registered</p>");
        }
        for (VerbsProvider p : sorted) {
            Html.heading(out, "Provider " + p.name());
            out.append("<p class='statline' id='verbs-status-").append(Html.esc(p.name())).append("'>")
                    .append(p.status().available() ? "available: " : "unavailable: ").append(Html.esc(p.status().reason()))
                    .append("</p>\n");
            List<List<Object>> rows = new ArrayList<>();
            for (Device d : p.devices()) {
                for (Port port : d.ports()) {
                    PortAttributes a = port.attributes();
                    StringBuilder gids = new StringBuilder();
                    for (int i = 0; i < Math.min(a.gidTableLength(), 4); i++) {
                        gids.append(port.gid(i)).append(' ');
                    }
                    rows.add(List.of(d.name(), d.nodeGuid(), port.number(), a.state(), a.lid(), a.smLid(), a.activeMtu(),
                            a.rate(), gids.toString().strip(), port.pkeyTable()));
                }
            }
            Html.table(out, "verbs-ports-" + p.name(), List.of("Device", "Node GUID", "Port", "State", "LID", "SM LID",
                    "MTU", "Rate", "GIDs", "P_Keys"), rows, "no devices: " + p.status().reason());
        }
        response.getWriter().write(out.toString());
    }
}
