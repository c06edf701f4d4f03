package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.listing.ListingSource;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import ipoib.runtime.JsonText;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The Web Console's IPoIB page: interfaces with state and reason, counters, neighbours, multicast
 * groups, the path information of a destination on request (a POST: it sends queries), and the live packets/s and drops/s
 * chart (plain SVG and a small script served from this bundle; nothing from the internet). The
 * same tables are served as JSON at {@code ipoib.json}, from which the script redraws them; the
 * connected-mode, path and netdev tables show the shell's listings ({@link ListingSource}), served
 * as the shell's {@code --json} prints them at {@code ipoib/cm.json}, {@code ipoib/paths.json} and
 * {@code ipoib/netdev.json}, and redrawn from there.
 */
@Component(service = Servlet.class, property = {
        "felix.webconsole.label=" + IpoibPlugin.LABEL,
        "felix.webconsole.title=IPoIB",
        "felix.webconsole.category=IPoIB"})
public final class IpoibPlugin extends HttpServlet {
    private static final long serialVersionUID = 1L;
    static final String LABEL = "ipoib";

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Reference
    private Resolvers resolvers;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile MulticastService multicast;

    @Reference
    private LinkRates rates;

    @Reference
    private ConsoleAccess access;

    @Reference
    private VerdictBoard verdicts;

    /** The shell's listings by name ({@link ListingSource#NAME_PROPERTY}). */
    private final transient Map<String, ListingSource> listings = new ConcurrentHashMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addListing(ListingSource source, Map<String, Object> properties) {
        listings.put(String.valueOf(properties.get(ListingSource.NAME_PROPERTY)), source);
    }

    void removeListing(ListingSource source) {
        listings.values().removeIf(s -> s == source);
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String path = request.getPathInfo() == null ? "" : request.getPathInfo();
        if (request.getRequestURI().endsWith("/" + LABEL + ".json")) {
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(json());
            return;
        }
        if (path.endsWith("/rates.json")) {
            response.setContentType("application/json;charset=UTF-8");
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(rates.json());
            return;
        }
        for (ListingTables.Listing listing : ListingTables.LISTINGS) {
            if (path.endsWith("/" + listing.name() + ".json")) {
                ListingSource source = listings.get(listing.name());
                response.setHeader("Cache-Control", "no-store");
                if (source == null) {
                    response.sendError(HttpServletResponse.SC_NOT_FOUND, listing.absent());
                    return;
                }
                response.setContentType("application/json;charset=UTF-8");
                response.getWriter().write(JsonText.of(source.listing()));
                return;
            }
        }
        if (path.endsWith("/live.js")) {
            response.setContentType("text/javascript;charset=UTF-8");
            // Not cached: a page loaded after a change of the interval gets the new one.
            response.setHeader("Cache-Control", "no-store");
            response.getWriter().write(LiveScript.text(access.refreshMillis()));
            return;
        }
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write(page(request, false));
    }

    /** The path query: it sends ARP/ND and PathRecord requests, so it is a POST (with the token), never a GET. */
    @Override
    protected void doPost(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType("text/html;charset=UTF-8");
        response.getWriter().write(page(request, true));
    }

    /** The page's data as JSON: {@code {"links":[..],"counters":[..],"neighbours":[..],"groups":[..],"refused":[..]}}. */
    String json() {
        Map<String, Object> out = new LinkedHashMap<>();
        tables().forEach((key, table) -> out.put(key, table.json()));
        return JsonText.of(out);
    }

    private Map<String, Table> tables() {
        Map<String, Table> tables = new LinkedHashMap<>(StackTables.of(links, resolvers.byFamily().values(), multicast));
        Table refused = RefusedTable.of(verdicts.standing());
        tables.put(refused.key(), refused);
        return tables;
    }

    String page(HttpServletRequest request, boolean resolve) {
        Object rootAttribute = request.getAttribute("felix.webconsole.pluginRoot");
        String root = rootAttribute != null ? rootAttribute.toString() : request.getContextPath() + "/" + LABEL;
        StringBuilder out = new StringBuilder();
        Map<String, Table> tables = tables();
        // The tables below are redrawn from this JSON (or their own data-live-source) by live.js.
        out.append("<div id='ipoib-refresh' data-source='").append(Html.esc(root)).append(".json' hidden></div>\n");

        Html.heading(out, "Interfaces");
        tables.get("links").html(out);

        Html.heading(out, "Live: packets/s and drops/s (last 5 minutes)");
        out.append("<div id='ipoib-live' data-source='").append(Html.esc(root)).append("/rates.json'>")
                .append("<svg id='ipoib-live-chart' width='900' height='220' viewBox='0 0 900 220' "
                        + "xmlns='http://www.w3.org/2000/svg' role='img' aria-label='packets per second'>")
                .append("<rect x='0' y='0' width='900' height='220' fill='#fafafa' stroke='#ccc'/></svg>")
                .append("<p id='ipoib-live-legend' class='statline'>waiting for the first samples...</p></div>\n")
                .append("<script src='").append(Html.esc(root)).append("/live.js'></script>\n");

        Html.heading(out, "Counters");
        tables.get("counters").html(out);
        Html.heading(out, "Neighbours");
        tables.get("neighbours").html(out);
        Html.heading(out, "Multicast groups");
        tables.get("groups").html(out);
        ListingTables.html(out, root, listings);
        Html.heading(out, "Refused configurations");
        tables.get("refused").html(out);

        Html.heading(out, "Path information");
        out.append("<form method='post' action='").append(Html.esc(root)).append("' id='ipoib-path-form'>")
                .append(AntiForgery.field())
                .append("destination <input name='destination' value='").append(Html.esc(orEmpty(request.getParameter("destination"))))
                .append("'> interface (optional) <input name='link' value='").append(Html.esc(orEmpty(request.getParameter("link"))))
                .append("'> <input type='submit' value='Resolve'></form>\n");
        String destination = resolve ? request.getParameter("destination") : null;
        if (destination != null && !destination.isBlank()) {
            out.append("<pre id='ipoib-path'>").append(Html.esc(pathInfo(request.getParameter("link"), destination.strip())))
                    .append("</pre>\n");
        }
        return out.toString();
    }

    private static String orEmpty(String s) {
        return s == null ? "" : s;
    }

    String pathInfo(String link, String destination) {
        InetAddress address;
        try {
            if (!destination.matches("[0-9a-fA-F:.%]+")) {
                return "'" + destination + "' is not an IPv4 or IPv6 address literal";
            }
            address = InetAddress.getByName(destination);
        } catch (IOException e) {
            return "'" + destination + "' is not an IPv4 or IPv6 address literal";
        }
        String family = address.getAddress().length == 4 ? NeighbourResolver.IPV4 : NeighbourResolver.IPV6;
        NeighbourResolver resolver = resolvers.byFamily().get(family);
        if (resolver == null) {
            return "no " + family + " resolver running";
        }
        List<String> candidates = new ArrayList<>();
        if (link != null && !link.isBlank()) {
            candidates.add(link.strip());
        } else {
            for (IpoibLink l : links) {
                candidates.add(l.name());
            }
            candidates.sort(null);
        }
        StringBuilder answers = new StringBuilder();
        for (String name : candidates) {
            PathInfoAnswer answer = resolver.pathInfo(name, address);
            try {
                PathInfo p = switch (answer) {
                    case PathInfoAnswer.Ready ready -> ready.path();
                    case PathInfoAnswer.Pending pending -> pending.path().toCompletableFuture().get(3, TimeUnit.SECONDS);
                    case PathInfoAnswer.NoSuchNode none -> {
                        answers.append(name).append(": no such node: ").append(none.reason()).append('\n');
                        yield null;
                    }
                };
                if (p != null) {
                    return name + ": DGID " + p.destinationGid() + "  SGID " + p.sourceGid() + "\n  DLID " + p.destinationLid()
                            + "  SLID " + p.sourceLid() + "  SL " + p.serviceLevel() + "  flow label " + p.flowLabel()
                            + "  P_Key " + p.pkey() + "\n  MTU " + p.mtu() + "  rate " + p.rate() + "  packet lifetime "
                            + p.packetLifetime() + "  hop limit " + p.hopLimit() + "  traffic class " + p.trafficClass();
                }
            } catch (Exception e) {
                answers.append(name).append(": ").append(e.getCause() != null ? e.getCause().getMessage() : e.toString())
                        .append('\n');
            }
        }
        return answers.isEmpty() ? "no interface to ask" : answers.toString();
    }

}
