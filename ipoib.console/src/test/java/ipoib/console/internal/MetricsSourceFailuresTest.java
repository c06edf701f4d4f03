package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.metrics.Metric;
import ipoib.api.metrics.MetricsSource;
import ipoib.runtime.ManualClock;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceReference;

/** A metrics source that throws during a scrape: left out, counted on /metrics and logged rate-limited by name. */
class MetricsSourceFailuresTest {
    private final ManualClock clock = new ManualClock();
    private final List<String> logged = new ArrayList<>();
    private final MetricsServlet servlet = new MetricsServlet(
            new SourceFailures((message, failure) -> logged.add(message), clock, 60, TimeUnit.SECONDS));

    @Test
    void aFailingSourceIsCountedOnMetricsAndLoggedOncePerIntervalWithItsName() {
        servlet.addSource(reference(1, Map.of("component.name", "ipoib.test.Good")),
                sink -> sink.sample(Metric.gauge("good", "a source that works"), 7));
        servlet.addSource(reference(2, Map.of("component.name", "ipoib.test.Failing")), sink -> {
            sink.sample(Metric.gauge("half", "written before the failure"), 1);
            throw new IllegalStateException("the bundle is stopping");
        });

        String first = servlet.collect().text();
        assertTrue(first.contains("\ngood 7.0\n"), first);
        assertTrue(!first.contains("half"), "the failing source is left out whole:\n" + first);
        assertTrue(first.contains("# TYPE ipoib_metrics_source_failures_total counter\n"
                + "ipoib_metrics_source_failures_total{source=\"ipoib.test.Failing\"} 1.0\n"), first);
        assertEquals(List.of("metrics source ipoib.test.Failing left out of the scrape: it threw "
                + "java.lang.IllegalStateException: the bundle is stopping"), logged);

        clock.advance(10, TimeUnit.SECONDS);
        servlet.collect();
        String third = servlet.collect().text();
        assertTrue(third.contains("ipoib_metrics_source_failures_total{source=\"ipoib.test.Failing\"} 3.0\n"), third);
        assertEquals(1, logged.size(), "within the interval, counted but not logged again: " + logged);

        clock.advance(60, TimeUnit.SECONDS);
        servlet.collect();
        assertEquals(2, logged.size(), logged.toString());
        assertTrue(logged.get(1).contains("ipoib.test.Failing") && logged.get(1).contains("(2 further failures"),
                logged.get(1));
    }

    @Test
    void aSourceThatDisagreesWithAFamilyIsCountedUnderItsBundleWhenItIsNoComponent() {
        servlet.addSource(reference(1, Map.of("component.name", "ipoib.test.First")),
                sink -> sink.sample(Metric.gauge("shared", "one way", "port"), 1, "1"));
        servlet.addSource(reference(9, Map.of()), sink -> sink.sample(Metric.gauge("shared", "another way"), 2));
        String text = servlet.collect().text();
        assertTrue(text.contains("ipoib_metrics_source_failures_total{source=\"ipoib.test.bundle service 9\"} 1.0\n"), text);
        assertTrue(logged.get(0).contains("disagrees with a family already written"), logged.toString());
    }

    @Test
    void withoutFailuresThereIsNoFailureFamily() {
        servlet.addSource(reference(1, Map.of()), sink -> sink.sample(Metric.gauge("good", "g"), 7));
        assertEquals("# HELP good g\n# TYPE good gauge\ngood 7.0\n", servlet.collect().text());
    }

    /** A service reference with a service id, the given properties, registered by bundle ipoib.test.bundle. */
    @SuppressWarnings("unchecked")
    private static ServiceReference<MetricsSource> reference(long id, Map<String, Object> properties) {
        org.osgi.framework.Bundle bundle = (org.osgi.framework.Bundle) Proxy.newProxyInstance(
                MetricsSourceFailuresTest.class.getClassLoader(), new Class<?>[] {org.osgi.framework.Bundle.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "getSymbolicName" -> "ipoib.test.bundle";
                    default -> throw new UnsupportedOperationException(method.getName());
                });
        return (ServiceReference<MetricsSource>) Proxy.newProxyInstance(MetricsSourceFailuresTest.class.getClassLoader(),
                new Class<?>[] {ServiceReference.class}, (proxy, method, args) -> switch (method.getName()) {
                    case "getProperty" -> Constants.SERVICE_ID.equals(args[0]) ? (Object) id : properties.get(args[0]);
                    case "getBundle" -> bundle;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
