package ipoib.console.internal;

import io.prometheus.metrics.expositionformats.ExpositionFormatWriter;
import io.prometheus.metrics.expositionformats.ExpositionFormats;
import io.prometheus.metrics.instrumentation.jvm.JvmMetrics;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import ipoib.api.metrics.MetricsSource;
import ipoib.runtime.Clock;
import jakarta.servlet.Servlet;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.Bundle;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * {@code /metrics} on the HTTP service: every {@link MetricsSource} service (the links and their
 * SA clients, the ARP and ND resolvers, multicast, the host layer, the loopback fabric, the
 * bridged devices) and the JVM's and process's metrics of the Prometheus Java client
 * ({@code jvm_*}, {@code process_*}), in the text format 0.0.4 or, when the scraper asks for it in
 * its {@code Accept} header, OpenMetrics. A source that fails or disagrees with a family already
 * written is left out of that scrape, counted in
 * {@code ipoib_metrics_source_failures_total{source=…}} and logged (rate-limited) with its name.
 */
@Component(service = Servlet.class, property = {
        "osgi.http.whiteboard.servlet.pattern=/metrics",
        "osgi.http.whiteboard.servlet.name=ipoib-metrics"})
public final class MetricsServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    /** A source and the name its failures are counted and logged under. */
    record Named(String name, MetricsSource source) {}

    /** By service id, so that every scrape lists the sources in the same order. */
    private final transient Map<Long, Named> sources = new ConcurrentSkipListMap<>();

    @Reference(service = LoggerFactory.class)
    private transient Logger log;

    private final transient SourceFailures failures;

    public MetricsServlet() {
        this.failures = new SourceFailures((message, failure) -> log.warn(message), Clock.SYSTEM, 60, TimeUnit.SECONDS);
    }

    /** With the failures' count and log of a test. */
    MetricsServlet(SourceFailures failures) {
        this.failures = failures;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addSource(ServiceReference<MetricsSource> reference, MetricsSource source) {
        sources.put((Long) reference.getProperty(Constants.SERVICE_ID), new Named(name(reference), source));
    }

    void removeSource(ServiceReference<MetricsSource> reference) {
        sources.remove((Long) reference.getProperty(Constants.SERVICE_ID));
    }

    /** The DS component's name, or the registering bundle's symbolic name and the service id. */
    static String name(ServiceReference<?> reference) {
        Object component = reference.getProperty("component.name");
        if (component != null) {
            return component.toString();
        }
        Bundle bundle = reference.getBundle();
        return (bundle == null ? "unregistered" : bundle.getSymbolicName()) + " service "
                + reference.getProperty(Constants.SERVICE_ID);
    }

    /** The client's writers, chosen by the request's {@code Accept} header. */
    private static final ExpositionFormats FORMATS = ExpositionFormats.init();

    /**
     * The JVM's and the process's metrics, in the client's default registry: the client registers
     * them there once however often it is asked, so a restarted console finds them.
     */
    static MetricSnapshots jvmAndProcess() {
        JvmMetrics.builder().register(PrometheusRegistry.defaultRegistry);
        return PrometheusRegistry.defaultRegistry.scrape();
    }

    @Override
    protected void doGet(HttpServletRequest request, HttpServletResponse response) throws IOException {
        ExpositionFormatWriter writer = FORMATS.findWriter(request.getHeader("Accept"));
        response.setContentType(writer.getContentType());
        response.setHeader("Cache-Control", "no-store");
        collect().write(response.getOutputStream(), writer, jvmAndProcess());
    }

    Exposition collect() {
        return collect(sources.values(), failures);
    }

    static Exposition collect(Iterable<Named> sources, SourceFailures failures) {
        Exposition e = new Exposition();
        for (Named n : sources) {
            SourceSamples.copy(n.source(), e, (why, failure) -> failures.failed(n.name(), why, failure));
        }
        SourceSamples.copy(failures::collect, e);
        return e;
    }
}
