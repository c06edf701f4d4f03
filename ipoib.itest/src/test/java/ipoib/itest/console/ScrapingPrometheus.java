package ipoib.itest.console;

import static org.junit.Assert.assertTrue;

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

/**
 * Debian's real {@code prometheus} server scraping an appliance's {@code /metrics} every second
 * (a configuration file with the console's address and credentials), and its HTTP API for PromQL
 * queries over what it stored.
 */
final class ScrapingPrometheus implements AutoCloseable {
    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Process process;
    private final Path dir;
    private final String api;
    private final long started;

    private ScrapingPrometheus(Process process, Path dir, String api, long started) {
        this.process = process;
        this.dir = dir;
        this.api = api;
        this.started = started;
    }

    /** Starts prometheus scraping {@code appliance} (waits for the address and credentials it prints). */
    static ScrapingPrometheus scraping(RunningAppliance appliance) throws Exception {
        if (!new File("/usr/bin/prometheus").canExecute()) {
            throw new AssertionError("prometheus is not installed: this test needs Debian's package 'prometheus' "
                    + "(./ipoib test installs it)");
        }
        String base = appliance.baseUrl();
        String target = URI.create(base).getAuthority();
        String[] credentials = appliance.printedCredentials();
        Path dir = Files.createTempDirectory("ipoib-prometheus-");
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
        long started = System.nanoTime();
        Process process = new ProcessBuilder("/usr/bin/prometheus", "--config.file=" + config,
                "--storage.tsdb.path=" + dir.resolve("data"), "--web.listen-address=127.0.0.1:" + port,
                "--log.level=warn").redirectErrorStream(true).redirectOutput(dir.resolve("prometheus.log").toFile())
                .start();
        ScrapingPrometheus prometheus = new ScrapingPrometheus(process, dir, "http://127.0.0.1:" + port, started);
        // prometheus scrapes a target first about 5 s after its start (its scrape manager applies targets
        // on a 5 s tick); in that window the appliance's first /metrics, which loads and
        // compiles the writers and takes longer than the scrape timeout on a loaded machine: the first
        // scrape then meets a warm one instead of timing out and waiting for the next interval.
        // The servlet of /metrics may come a moment after the address line: asked until it answers.
        String first = appliance.served("/metrics");
        assertTrue(first, first.contains("jvm_memory_used_bytes"));
        return prometheus;
    }

    /** When prometheus was started ({@link System#nanoTime}). */
    long startedNanos() {
        return started;
    }

    /** The first value of an instant query's answer, or NaN while it has none. */
    double query(String promql) {
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

    String log() {
        try {
            return "prometheus log:\n" + Files.readString(dir.resolve("prometheus.log"));
        } catch (IOException e) {
            return "prometheus log unreadable: " + e;
        }
    }

    @Override
    public void close() throws IOException {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
