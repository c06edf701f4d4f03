package ipoib.itest.console;

import java.io.IOException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * What the console's scenarios run against, each started once: the shared appliance
 * ({@link RunningAppliance#shared}), a second appliance listening on every address without the
 * default interfaces ({@link #remote}), headless Chromium ({@link #browser}) and prometheus
 * scraping the shared appliance ({@link #prometheus}). {@link #startAll} starts them all before
 * the first scenario, so that the second appliance boots and prometheus waits out its first 5 s
 * while the pages are tested; a scenario run on its own starts only what it asks for. Each is
 * closed by the one scenario class that uses it, or by {@link #stopAll}.
 */
final class ConsoleFixture {
    private static CompletableFuture<RunningAppliance> remote;
    private static CompletableFuture<HeadlessChromium> browser;
    private static CompletableFuture<ScrapingPrometheus> prometheus;

    private ConsoleFixture() {}

    /**
     * Starts everything; returns at once. Chromium starts with the shared appliance; the second
     * appliance and prometheus once the shared one is up, so that the two appliances do not boot on
     * the same cores at the same time: the second boots while the first one's pages are tested.
     */
    static synchronized void startAll() throws IOException {
        long started = System.nanoTime();
        RunningAppliance shared = RunningAppliance.shared();
        tell(browserFuture(), "chromium", started);
        if (remote == null) {
            remote = inBackground("the appliance listening on every address", () -> {
                shared.baseUrl();
                say("the shared appliance's console ready", started);
                RunningAppliance r = startRemote();
                try {
                    r.baseUrl();
                    // Its first /metrics loads and compiles the writers (seconds on a loaded machine):
                    // asked here, while the pages are tested, not in the scenario's time.
                    r.served("/metrics");
                } catch (AssertionError notStarted) {
                    r.close();
                    throw notStarted;
                }
                return r;
            });
            tell(remote, "the second appliance's console (/metrics warm)", started);
        }
        tell(prometheusFuture(), "prometheus (started, /metrics warm)", started);
    }

    /** Says on stdout when a fixture is ready: where the suite's start goes. */
    private static void tell(CompletableFuture<?> ready, String what, long since) {
        ready.whenComplete((r, e) -> say(what + (e == null ? " ready" : " failed"), since));
    }

    private static void say(String what, long since) {
        System.out.println("ConsoleFixture: " + what + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - since)
                + " ms after the suite started");
    }

    /** The appliance listening on every address ({@code org.apache.felix.http.host=0.0.0.0}), without the default interfaces. */
    static RunningAppliance remote() throws Exception {
        CompletableFuture<RunningAppliance> r;
        synchronized (ConsoleFixture.class) {
            if (remote == null) {
                remote = CompletableFuture.completedFuture(startRemote());
            }
            r = remote;
        }
        return join(r, "the appliance listening on every address");
    }

    private static RunningAppliance startRemote() throws IOException {
        // Without the default interfaces: who may use the console does not depend on them.
        return RunningAppliance.start(RunningAppliance.freePort(), "org.apache.felix.http.host=0.0.0.0",
                "ipoib.defaults=false");
    }

    /** Starts chromium unless it runs or is starting; returns at once. */
    static void startBrowser() {
        browserFuture();
    }

    /**
     * Chromium, once it has the console's credentials and has loaded the console page at
     * {@code path} (once the appliance serves it) and left it for about:blank; returns at once.
     * The first load of a console page fetches the Web Console's scripts, styles and images (a
     * second on a loaded machine), which a later load of any console page takes from the browser's
     * cache: done while the appliance brings its interfaces up, not in the first scenario that
     * loads a page.
     */
    static CompletableFuture<HeadlessChromium> warmBrowser(RunningAppliance appliance, String path) {
        CompletableFuture<HeadlessChromium> started = browserFuture();
        return inBackground("chromium loading the console once", () -> {
            // The page's plugin may register after the console's address line (a 404 until then).
            appliance.served(path);
            HeadlessChromium b = join(started, "chromium");
            b.authorize(appliance.authorization());
            b.navigate(appliance.baseUrl() + path);
            b.navigate("about:blank");
            return b;
        });
    }

    static HeadlessChromium browser() throws Exception {
        return join(browserFuture(), "chromium");
    }

    private static synchronized CompletableFuture<HeadlessChromium> browserFuture() {
        if (browser == null) {
            browser = inBackground("chromium", HeadlessChromium::start);
        }
        return browser;
    }

    static ScrapingPrometheus prometheus() throws Exception {
        return join(prometheusFuture(), "prometheus");
    }

    private static synchronized CompletableFuture<ScrapingPrometheus> prometheusFuture() {
        if (prometheus == null) {
            prometheus = inBackground("prometheus", () -> ScrapingPrometheus.scraping(RunningAppliance.shared()));
        }
        return prometheus;
    }

    static void closeRemote() throws Exception {
        close(takeRemote());
    }

    static void closeBrowser() throws Exception {
        close(takeBrowser());
    }

    static void closePrometheus() throws Exception {
        close(takePrometheus());
    }

    /** Closes whatever is still running but the shared appliance (which runs until the test JVM ends). */
    static void stopAll() throws Exception {
        try {
            closeRemote();
        } finally {
            try {
                closeBrowser();
            } finally {
                closePrometheus();
            }
        }
    }

    private static synchronized CompletableFuture<RunningAppliance> takeRemote() {
        CompletableFuture<RunningAppliance> r = remote;
        remote = null;
        return r;
    }

    private static synchronized CompletableFuture<HeadlessChromium> takeBrowser() {
        CompletableFuture<HeadlessChromium> b = browser;
        browser = null;
        return b;
    }

    private static synchronized CompletableFuture<ScrapingPrometheus> takePrometheus() {
        CompletableFuture<ScrapingPrometheus> p = prometheus;
        prometheus = null;
        return p;
    }

    /** Closes what the future brought, once it has (a start that failed leaves nothing to close). */
    private static void close(CompletableFuture<? extends AutoCloseable> started) throws Exception {
        if (started == null) {
            return;
        }
        AutoCloseable c;
        try {
            c = started.get(90, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return;
        }
        c.close();
    }

    interface Start<T> {
        T start() throws Exception;
    }

    /** Runs a start on a thread of its own (the common pool has one thread on two cores). */
    private static <T> CompletableFuture<T> inBackground(String what, Start<T> start) {
        CompletableFuture<T> f = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                f.complete(start.start());
            } catch (Throwable e) {
                f.completeExceptionally(e);
            }
        }, "starting " + what);
        t.setDaemon(true);
        t.start();
        return f;
    }

    private static <T> T join(CompletableFuture<T> started, String what) throws Exception {
        try {
            return started.get(90, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof AssertionError a) {
                throw a;
            }
            throw new AssertionError("starting " + what, e.getCause());
        } catch (TimeoutException e) {
            throw new AssertionError(what + " not started within 90 s", e);
        }
    }
}
