package ipoib.itest.console;

import static org.junit.Assert.assertTrue;

import ipoib.itest.Await;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code /metrics} as an operator meets it: Debian's real {@code prometheus} server scrapes the
 * shared appliance every second ({@link ScrapingPrometheus}, started with the console's other
 * fixtures), and its HTTP API answers PromQL queries over what it stored: a rate of a counter that
 * a ping moved, a histogram and the JVM's metrics.
 */
public class PrometheusScrape {
    private static RunningAppliance appliance;
    private static ScrapingPrometheus prometheus;

    @BeforeClass
    public static void startPrometheus() throws Exception {
        appliance = RunningAppliance.shared();
        prometheus = ConsoleFixture.prometheus();
    }

    @AfterClass
    public static void stopPrometheus() throws Exception {
        ConsoleFixture.closePrometheus();
    }

    @Test
    public void prometheusScrapesTheApplianceAndComputesTheRateOfAPing() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        Await.until("prometheus to scrape the appliance (up == 1)", Duration.ofSeconds(60), Duration.ofMillis(200),
                () -> prometheus.query("up{job=\"ipoib\"}") == 1, prometheus::log);
        long upAt = System.nanoTime();
        System.out.println("PrometheusScrape: up == 1 " + TimeUnit.NANOSECONDS.toMillis(upAt - prometheus.startedNanos())
                + " ms after prometheus was started");
        String ping = appliance.shell("ipoib:ping -c 3 -i 0.01 10.0.0.2");
        assertTrue(ping, ping.contains("3 received"));
        // The echo requests arrive on ib1_1_ffff: the counter's rate over the last seconds is above 0.
        String rate = "rate(ipoib_link_rx_packets_total{interface=\"ib1_1_ffff\"}[10s])";
        long pinged = System.nanoTime();
        Await.until(rate + " > 0", Duration.ofSeconds(30), Duration.ofMillis(200), () -> prometheus.query(rate) > 0,
                () -> "last answer " + prometheus.query(rate) + "\n" + prometheus.log());
        System.out.println("PrometheusScrape: the ping took " + TimeUnit.NANOSECONDS.toMillis(pinged - upAt)
                + " ms, its rate above 0 " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pinged) + " ms after it");
        // The ping's path and the broadcast joins were timed: the histograms have observations.
        for (String promql : new String[] {"sum(ipoib_sa_client_round_trip_duration_seconds_count)",
                "ipoib_link_broadcast_join_duration_seconds_count{interface=\"ib0_1_ffff\"}",
                "count(ipoib_link_info{interface=\"ib0_1_ffff\",device=\"loop0\",port=\"1\",pkey=\"0xffff\","
                        + "provider=\"loopback\"})",
                "jvm_memory_used_bytes{area=\"heap\"}", "process_cpu_seconds_total"}) {
            double value = prometheus.query(promql);
            assertTrue(promql + " = " + value + ", expected above 0", value > 0);
        }
    }
}
