package ipoib.console.internal;

import ipoib.api.host.IpHost;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.metrics.MetricsSource;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * {@code /metrics} on the HTTP service, in the Prometheus text format: the links, SA clients,
 * neighbours, multicast and host layer (read through their services), then every
 * {@link MetricsSource} service of other bundles (the loopback fabric's, the bridged devices'), in
 * the order they were registered. A source that fails or disagrees with a family already written
 * is left out of that scrape.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=/metrics",
        "osgi.http.whiteboard.servlet.name=ipoib-metrics"})
public final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Reference
    private Resolvers resolvers;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile MulticastService multicast;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile IpHost host;

    /** By service id, so that every scrape lists the sources in the same order. */
    private final transient Map<Long, MetricsSource> sources = new ConcurrentSkipListMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addSource(MetricsSource source, Map<String, Object> properties) {
        sources.put((Long) properties.get(Constants.SERVICE_ID), source);
    }

    void removeSource(MetricsSource source, Map<String, Object> properties) {
        sources.remove((Long) properties.get(Constants.SERVICE_ID));
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        response.setContentType(Exposition.CONTENT_TYPE);
        response.setHeader("Cache-Control", "no-store");
        response.getWriter().write(collect().text());
    }

    Exposition collect() {
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        List<MetricsSource> all = new ArrayList<>();
        all.add(new LinkMetrics(sorted));
        all.add(new SaClientMetrics(sorted));
        all.add(new NeighbourMetrics(resolvers.byFamily(), sorted));
        MulticastService m = multicast;
        if (m != null) {
            all.add(new MulticastMetrics(m, sorted));
        }
        IpHost h = host;
        if (h != null) {
            all.add(new HostMetrics(h));
        }
        all.addAll(sources.values());
        Exposition e = new Exposition();
        for (MetricsSource source : all) {
            SourceSamples.copy(source, e);
        }
        return e;
    }
}
