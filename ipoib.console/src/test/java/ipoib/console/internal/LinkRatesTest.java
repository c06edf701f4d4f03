package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.metrics.Metric;
import ipoib.runtime.ManualClock;
import ipoib.runtime.ManualControlLoop;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The console's live rates, sampled on a manual clock: one sample a second of the loop's clock. */
class LinkRatesTest {
    private final ManualClock clock = new ManualClock();
    private final List<String> logged = new ArrayList<>();
    private final LinkRates rates = new LinkRates((message, failure) -> logged.add(message), clock);
    private final ManualControlLoop loop = new ManualControlLoop(clock, rates.failures());
    private final AtomicLong rx = new AtomicLong();
    private final AtomicLong tx = new AtomicLong();

    @Test
    void ratesArePerSecondOfTheLoopsClock() {
        rates.links = List.of(link("ib0_1_ffff"));
        rates.start(loop);
        loop.advance(1, TimeUnit.SECONDS); // the first sample is the base of the next
        assertEquals(0, rates.series().get("ib0_1_ffff").rxPackets().length);
        rx.addAndGet(5);
        tx.addAndGet(2);
        loop.advance(999, TimeUnit.MILLISECONDS);
        assertEquals(0, rates.series().get("ib0_1_ffff").rxPackets().length, "no sample before the second is over");
        loop.advance(1, TimeUnit.MILLISECONDS);
        rx.addAndGet(7);
        loop.advance(1, TimeUnit.SECONDS);
        LinkRates.Series s = rates.series().get("ib0_1_ffff");
        assertArrayEquals(new long[] {5, 7}, s.rxPackets());
        assertArrayEquals(new long[] {2, 0}, s.txPackets());

        loop.advance(LinkRates.SECONDS + 10, TimeUnit.SECONDS);
        assertEquals(LinkRates.SECONDS, rates.series().get("ib0_1_ffff").rxPackets().length, "the ring is bounded");
        rates.links = List.of();
        loop.advance(1, TimeUnit.SECONDS);
        assertTrue(rates.series().isEmpty(), "an interface that went away is forgotten");
        rates.deactivate();
        assertEquals(0, loop.scheduled(), "no sample after deactivation");
    }

    @Test
    void aFailingSampleIsCountedOnMetricsLoggedOnceAMinuteAndSamplingGoesOn() {
        rates.links = null; // what no sample survives
        rates.start(loop);
        loop.advance(3, TimeUnit.SECONDS);
        assertEquals(1, logged.size(), logged.toString());
        assertEquals(3, failures());
        rates.links = List.of(link("ib0_1_ffff"));
        loop.advance(2, TimeUnit.SECONDS);
        assertEquals(0, rates.series().get("ib0_1_ffff").rxPackets()[0], "sampling went on after the failures");
        assertEquals(3, failures());
    }

    private long failures() {
        long[] value = {-1};
        rates.collect((Metric metric, long v, String... labels) -> {
            assertEquals(LinkRates.FAILURES, metric.name());
            value[0] = v;
        });
        return value[0];
    }

    private IpoibLink link(String name) {
        return (IpoibLink) Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {IpoibLink.class},
                (p, method, args) -> switch (method.getName()) {
                    case "name" -> name;
                    case "counters" -> new LinkCounters(rx.get(), 0, 0, 0, 0, 0, tx.get(), 0, 0, 0, 0, 0);
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }
}
