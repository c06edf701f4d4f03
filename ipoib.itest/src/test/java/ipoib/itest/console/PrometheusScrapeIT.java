package ipoib.itest.console;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import ipoib.itest.Await;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * {@code /metrics} as an operator meets it: Debian's real {@code prometheus} server scrapes the
 * shared appliance every second (a configuration file with its address and the console's
 * credentials), and its HTTP API answers PromQL queries over what it stored: a rate of a counter
 * that a ping moved, a histogram and the JVM's metrics.
 */
public class PrometheusScrapeIT {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private static RunningAppliance appliance;
    private static Process prometheus;
    private static Path dir;
    private static String api;
    private static long started;

    @BeforeClass
    public static void startPrometheus() throws Exception {
        if (!new File("/usr/bin/prometheus").canExecute()) {
            throw new AssertionError("prometheus is not installed: this test needs Debian's package 'prometheus' "
                    + "(./ipoib test installs it)");
        }
        appliance = RunningAppliance.shared();
        String target = URI.create(appliance.baseUrl()).getAuthority();
        String[] credentials = appliance.printedCredentials();
        dir = Files.createTempDirectory("ipoib-prometheus-");
        Path config = dir.resolve("prometheus.yml");
        Files.writeString(config, """
                global:
                  scrape_interval: 1s
                  scrape_timeout: 1s
                scrape_configs:
                  - job_name: ipoib
                    metrics_path: /metrics
                    basic_auth:
                      username: '%s'
                      password: '%s'
                    static_configs:
                      - targets: ['%s']
                """.formatted(credentials[0], credentials[1], target));
        int port = RunningAppliance.freePort();
        api = "http://127.0.0.1:" + port;
        started = System.nanoTime();
        prometheus = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        // prometheus scrapes a target first about 5 s after its start (its scrape manager applies targets
        // on a 5 s tick); in that window the appliance's first /metrics, which loads and compiles the
        // writers and takes longer than the scrape timeout on a loaded machine: the first scrape then
        // meets a warm one instead of timing out and waiting for the next interval.
        HttpResponse<String> first = HTTP.send(HttpRequest.newBuilder(URI.create(appliance.baseUrl() + "/metrics"))
                .header("Authorization", RunningAppliance.basic(credentials[0], credentials[1]))
                .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(first.body(), 200, first.statusCode());
        assertTrue(first.body(), first.body().contains("jvm_memory_used_bytes"));
    }

    @AfterClass
    public static void stopPrometheus() throws Exception {
        if (prometheus != null) {
            prometheus.destroy();
            if (!prometheus.waitFor(20, TimeUnit.SECONDS)) {
                prometheus.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        }
        if (dir != null) {
            try (var files = Files.walk(dir)) {
                for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(p);
                }
            }
        }
    }

    /** The first value of an instant query's answer, or NaN while it has none. */
    private static double query(String promql) {
        try {
            HttpResponse<String> r = HTTP.send(HttpRequest.newBuilder(URI.create(api + "/api/v1/query?query="
                    + URLEncoder.encode(promql, StandardCharsets.UTF_8))).timeout(Duration.ofSeconds(5)).build(),
                    HttpResponse.BodyHandlers.ofString());
            Matcher m = Pattern.compile("\"value\":\\[[0-9.]+,\"([^\"]+)\"\\]").matcher(r.body());
            return r.statusCode() == 200 && m.find() ? Double.parseDouble(m.group(1)) : Double.NaN;
        } catch (IOException notYet) {
            return Double.NaN; // prometheus is still starting
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(e);
        }
    }

    private static String log() {
        try {
            return "prometheus log:\n" + Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "prometheus log unreadable: " + e;
        }
    }

    @Test
    public void prometheusScrapesTheApplianceAndComputesTheRateOfAPing() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        Await.until("prometheus to scrape the appliance (up == 1)", Duration.ofSeconds(60), Duration.ofMillis(200),
                () -> query("up{job=\"ipoib\"}") == 1, PrometheusScrapeIT::log);
        long upAt = System.nanoTime();
        System.out.println("PrometheusScrapeIT: up == 1 " + TimeUnit.NANOSECONDS.toMillis(upAt - started)
                + " ms after prometheus was started");
        String ping = appliance.shell("ipoib:ping -c 5 -i 0.2 10.0.0.2");
        assertTrue(ping, ping.contains("5 received"));
        // The echo requests arrive on ib1_1_ffff: the counter's rate over the last seconds is above 0.
        String rate = "rate(ipoib_link_rx_packets_total{interface=\"ib1_1_ffff\"}[10s])";
        long pinged = System.nanoTime();
        Await.until(rate + " > 0", Duration.ofSeconds(30), Duration.ofMillis(200), () -> query(rate) > 0,
                () -> "last answer " + query(rate) + "\n" + log());
        System.out.println("PrometheusScrapeIT: the ping took " + TimeUnit.NANOSECONDS.toMillis(pinged - upAt)
                + " ms, its rate above 0 " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - pinged) + " ms after it");
        // The ping's path and the broadcast joins were timed: the histograms have observations.
        for (String promql : new String[] {"sum(ipoib_sa_client_round_trip_duration_seconds_count)",
                "ipoib_link_broadcast_join_duration_seconds_count{interface=\"ib0_1_ffff\"}",
                "count(ipoib_link_info{interface=\"ib0_1_ffff\",device=\"loop0\",port=\"1\",pkey=\"0xffff\","
                        + "provider=\"loopback\"})",
                "jvm_memory_used_bytes{area=\"heap\"}", "process_cpu_seconds_total"}) {
            double value = query(promql);
            assertTrue(promql + " = " + value + ", expected above 0", value > 0);
        }
    }
}
