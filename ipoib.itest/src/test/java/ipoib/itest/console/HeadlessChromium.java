package ipoib.itest.console;

import ipoib.itest.Await;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

/**
 * A real browser for the tests: Debian's {@code chromium} started headless with a fresh profile,
 * driven over the DevTools protocol (a WebSocket): navigate, evaluate JavaScript in the page,
 * take screenshots.
 */
final class HeadlessChromium implements AutoCloseable {
    private final Process process;
    private final Path profile;
    private final WebSocket socket;
    private final AtomicInteger ids = new AtomicInteger();
    private final Map<Integer, CompletableFuture<Map<String, Object>>> pending = new ConcurrentHashMap<>();
    private static final Duration LOOK_EVERY = Duration.ofMillis(10);

    private HeadlessChromium(Process process, Path profile, WebSocket socket) {
        this.process = process;
        this.profile = profile;
        this.socket = socket;
    }

    static String binary() {
        for (String candidate : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (Files.isExecutable(Path.of(candidate))) {
                return candidate;
            }
        }
        return null;
    }

    static HeadlessChromium start() throws Exception {
        String binary = binary();
        if (binary == null) {
            throw new AssertionError("chromium is not installed: the console tests need Debian's package 'chromium' "
                    + "(apt-get install chromium; ./ipoib test and .ci/run install it)");
        }
        Path profile = Files.createTempDirectory("ipoib-chromium-");
        // Without the back/forward cache: pages left behind there sent their polls without the
        // Authorization header of Network.setExtraHTTPHeaders, and each 401 kept one of Chromium's
        // six connections to the console at the login prompt for 20-60 s.
        Process process = new ProcessBuilder(binary, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
                "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-dev-shm-usage", "--hide-scrollbars", "--disable-features=BackForwardCache", "--user-data-dir=" + profile,
                "--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0", "--window-size=1280,1600",
                "about:blank")
                .redirectErrorStream(true).redirectOutput(profile.resolve("chromium.log").toFile()).start();
        Path portFile = profile.resolve("DevToolsActivePort");
        try {
            Await.until("chromium's DevTools port", Duration.ofSeconds(60), () -> !process.isAlive() || lines(portFile) >= 2);
        } catch (AssertionError timedOut) {
            process.destroyForcibly();
            throw timedOut;
        }
        if (lines(portFile) < 2) {
            throw new AssertionError("chromium ended without opening its DevTools port; its log:\n"
                    + Files.readString(profile.resolve("chromium.log")));
        }
        int port = Integer.parseInt(Files.readAllLines(portFile).get(0).strip());
        HttpClient http = HttpClient.newHttpClient();
        // A new page target; its WebSocket takes the page-level commands.
        String created = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/new?about:blank"))
                .PUT(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString()).body();
        @SuppressWarnings("unchecked")
        Map<String, Object> target = (Map<String, Object>) Json.parse(created);
        String ws = (String) target.get("webSocketDebuggerUrl");
        HeadlessChromium[] self = new HeadlessChromium[1];
        StringBuilder partial = new StringBuilder();
        WebSocket socket = http.newWebSocketBuilder().buildAsync(URI.create(ws), new WebSocket.Listener() {
            @Override
            public CompletionStage<?> onText(WebSocket webSocket, CharSequence data, boolean last) {
                partial.append(data);
                if (last) {
                    String message = partial.toString();
                    partial.setLength(0);
                    self[0].dispatch(message);
                }
                webSocket.request(1);
                return null;
            }
        }).get(30, TimeUnit.SECONDS);
        HeadlessChromium chromium = new HeadlessChromium(process, profile, socket);
        self[0] = chromium;
        chromium.call("Page.enable", "{}");
        chromium.call("Emulation.setDeviceMetricsOverride",
                "{\"width\":1280,\"height\":1600,\"deviceScaleFactor\":1,\"mobile\":false}");
        return chromium;
    }

    @SuppressWarnings("unchecked")
    private void dispatch(String message) {
        Map<String, Object> m = (Map<String, Object>) Json.parse(message);
        Object id = m.get("id");
        if (id instanceof Double d) {
            CompletableFuture<Map<String, Object>> f = pending.remove(d.intValue());
            if (f != null) {
                f.complete(m);
            }
        }
    }

    /** Sends a DevTools command and waits for its answer. */
    @SuppressWarnings("unchecked")
    Map<String, Object> call(String method, String paramsJson) throws Exception {
        int id = ids.incrementAndGet();
        CompletableFuture<Map<String, Object>> answer = new CompletableFuture<>();
        pending.put(id, answer);
        socket.sendText("{\"id\":" + id + ",\"method\":\"" + method + "\",\"params\":" + paramsJson + "}", true)
                .get(30, TimeUnit.SECONDS);
        Map<String, Object> m = answer.get(60, TimeUnit.SECONDS);
        if (m.containsKey("error")) {
            throw new AssertionError(method + " failed: " + m.get("error"));
        }
        return (Map<String, Object>) m.get("result");
    }

    /** Sends this Authorization header with every request, as a browser does after the login prompt. */
    void authorize(String authorization) throws Exception {
        call("Network.enable", "{}");
        call("Network.setExtraHTTPHeaders", "{\"headers\":{\"Authorization\":" + Json.quote(authorization) + "}}");
    }

    void navigate(String url) throws Exception {
        call("Page.navigate", "{\"url\":" + Json.quote(url) + "}");
        await("document loaded: " + url, "document.readyState === 'complete' && location.href === " + Json.quote(url),
                v -> v.equals("true"));
    }

    /**
     * Leaves every request of the page whose address matches {@code urlPattern} (DevTools' Fetch
     * patterns: {@code *} any characters) without an answer, as a server that never answers does,
     * until {@link #answerRequestsAgain}.
     */
    void leaveUnanswered(String urlPattern) throws Exception {
        call("Fetch.enable", "{\"patterns\":[{\"urlPattern\":" + Json.quote(urlPattern) + "}]}");
    }

    /** Requests are answered again from now on. */
    void answerRequestsAgain() throws Exception {
        call("Fetch.disable", "{}");
    }


    /** Evaluates an expression in the page; the result as a string. */
    @SuppressWarnings("unchecked")
    String eval(String expression) throws Exception {
        Map<String, Object> r = call("Runtime.evaluate", "{\"expression\":" + Json.quote("String(" + expression + ")")
                + ",\"returnByValue\":true}");
        Map<String, Object> result = (Map<String, Object>) r.get("result");
        if (r.containsKey("exceptionDetails")) {
            throw new AssertionError("page script failed: " + r.get("exceptionDetails"));
        }
        return String.valueOf(result.get("value"));
    }

    /**
     * Polls an expression until the condition holds on its value (60 s at most), every 10 ms: each
     * look is a round trip the page's renderer answers, and looking every millisecond took the
     * cores from the page and the appliance being waited for.
     */
    String await(String what, String expression, Predicate<String> condition) {
        String[] value = {null};
        Await.until(what, Duration.ofSeconds(60), LOOK_EVERY, () -> {
            try {
                value[0] = eval(expression);
                return condition.test(value[0]);
            } catch (AssertionError navigating) {
                value[0] = navigating.getMessage();
                return false;
            } catch (Exception e) {
                throw new AssertionError("evaluating " + expression, e);
            }
        }, () -> "; last value: " + value[0]);
        return value[0];
    }

    /** Lines in a file so far (0 while it does not exist). */
    private static int lines(Path file) {
        try {
            return Files.isRegularFile(file) ? Files.readAllLines(file).size() : 0;
        } catch (java.io.IOException e) {
            return 0; // being written
        }
    }

    /** A PNG of the whole page. */
    void screenshot(Path file) throws Exception {
        Map<String, Object> r = call("Page.captureScreenshot", "{\"format\":\"png\",\"captureBeyondViewport\":true}");
        Files.createDirectories(file.getParent());
        Files.write(file, Base64.getDecoder().decode((String) r.get("data")));
    }

    @Override
    public void close() throws IOException {
        socket.abort();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (var files = Files.walk(profile)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    static Duration timeout() {
        return Duration.ofSeconds(60);
    }
}
