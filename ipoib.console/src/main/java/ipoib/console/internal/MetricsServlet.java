package ipoib.console.internal;

import ipoib.api.metrics.MetricsSource;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * {@code /metrics} on the HTTP service, in the Prometheus text format: every {@link MetricsSource}
 * service (the links and their SA clients, the ARP and ND resolvers, multicast, the host layer, the
 * loopback fabric, the bridged devices), in the order they were registered. A source that fails or
 * disagrees with a family already written is left out of that scrape.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=/metrics",
        "osgi.http.whiteboard.servlet.name=ipoib-metrics"})
public final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

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
        Exposition e = new Exposition();
        for (MetricsSource source : sources.values()) {
            SourceSamples.copy(source, e);
        }
        return e;
    }
}
