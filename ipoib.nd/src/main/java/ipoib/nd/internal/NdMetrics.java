package ipoib.nd.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.metrics.MetricSink;
import ipoib.api.metrics.MetricsSource;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.neighbour.NeighbourMetrics;
import java.util.List;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** The ND resolver's neighbours and counters for the console's {@code /metrics} ({@code ipoib_nd_*}). */
@Component(service = MetricsSource.class)
public final class NdMetrics implements MetricsSource {
    @Reference(target = "(" + NeighbourResolver.FAMILY_PROPERTY + "=" + NeighbourResolver.IPV6 + ")")
    private NeighbourResolver resolver;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Override
    public void collect(MetricSink sink) {
        NeighbourMetrics.collect(sink, NeighbourResolver.IPV6, "nd", resolver, links);
    }
}
