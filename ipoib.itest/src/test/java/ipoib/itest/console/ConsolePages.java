package ipoib.itest.console;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import ipoib.itest.Await;
import ipoib.itest.Promtool;
import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * The operator's console of a running appliance, as an operator meets it: pages loaded in a real
 * browser (headless Chromium) and checked in the DOM, screenshots saved under
 * target/console-screenshots, /metrics checked by Prometheus' promtool, the anti-forgery
 * protection, the Gogo commands ipoib:events and ipoib:config, and the pages coming and going with
 * the bundles they show. Runs on the appliance the console's test classes share, with the pages'
 * refresh interval at 200 ms for the class (set back to the default of 2 s after it), so that a
 * wait for a page to follow the stack is a wait for the stack.
 */
public class ConsolePages {

    private static RunningAppliance appliance;
    private static HeadlessChromium browser;
    private static String base;
    private static String auth;
    private static final HttpClient HTTP = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
            .followRedirects(HttpClient.Redirect.NEVER).build();
    /** The pages' refresh interval for this class (the default is 2 000 ms). */
    private static final int REFRESH_MILLIS = 200;
    private static final Path SHOTS = Path.of(System.getProperty("basedir", "."), "target", "console-screenshots");

    @BeforeClass
    public static void startAppliance() throws Exception {
        // The browser starts while the appliance does (already with the suite's other fixtures, if it runs).
        ConsoleFixture.startBrowser();
        java.util.concurrent.CompletableFuture<HeadlessChromium> warm = null;
        try {
            appliance = RunningAppliance.shared();
            base = appliance.baseUrl();
            auth = appliance.authorization();
            assertTrue("the console listens on the loopback address by default: " + base,
                    base.startsWith("http://127.0.0.1:"));
            warm = ConsoleFixture.warmBrowser(appliance, "/system/console/ipoib");
            String up = appliance.shell("ipoib:await all 30");
            assertTrue(up, up.contains("ib0_1_ffff UP") && up.contains("ib1_1_ffff UP"));
            String ping = appliance.shell("ipoib:ping -c 2 -i 0.01 10.0.0.2");
            assertTrue(ping, ping.contains("2 received"));
            String refresh = appliance.shell("ipoib:config ipoib.console refreshMillis " + REFRESH_MILLIS);
            assertTrue(refresh, refresh.contains("ipoib.console: refreshMillis = " + REFRESH_MILLIS));
        } finally {
            browser = ConsoleFixture.browser(); // closed by stop() whatever happened
        }
        try {
            warm.get(90, TimeUnit.SECONDS);
        } catch (java.util.concurrent.ExecutionException e) {
            throw new AssertionError("chromium loading the console's IPoIB page", e.getCause());
        }
    }

    @AfterClass
    public static void stop() throws Exception {
        try {
            if (appliance != null) {
                String back = appliance.shell("ipoib:config ipoib.console refreshMillis 2000");
                assertTrue(back, back.contains("ipoib.console: refreshMillis = 2000"));
                // The class's tests set it through the shell and the Web Console's page: back to its default.
                String arp = appliance.shell("ipoib:config ipoib.arp retransmitMillis 1000");
                assertTrue(arp, arp.contains("ipoib.arp: retransmitMillis = 1000"));
            }
        } finally {
            ConsoleFixture.closeBrowser();
        }
    }

    private static HttpResponse<String> get(String path) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", auth).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    private static HttpResponse<String> post(String path, String form) throws Exception {
        return HTTP.send(HttpRequest.newBuilder(URI.create(base + path)).header("Authorization", auth)
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString(form)).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String text(String selector) throws Exception {
        return browser.eval("(document.querySelector('" + selector + "') || {textContent: 'MISSING'}).textContent");
    }

    /**
     * The IPoIB page: interfaces, neighbours, groups and the live chart, drawn by the bundle's script
     * from rates.json; its tables and chart follow the stack without a reload (a flushed neighbour
     * leaves the table, a ping brings it back and shows in the chart).
     */
    @Test
    public void ipoibPageShowsTheStackAndFollowsItWithoutAReload() throws Exception {
        openIpoibPageWithTheNeighbourResolved();
        String links = text("#ipoib-links");
        assertTrue(links, links.contains("ib0_1_ffff") && links.contains("ib1_1_ffff") && links.contains("UP"));
        String neighbours = text("#ipoib-neighbours");
        assertTrue("the ping resolved 10.0.0.2 on ib0_1_ffff: " + neighbours,
                neighbours.contains("10.0.0.2") && neighbours.contains("RESOLVED"));
        String groups = text("#ipoib-groups");
        assertTrue("the broadcast group of P_Key 0xffff: " + groups, groups.contains("ff12:401b:ffff::ffff:ffff"));
        browser.await("live chart lines for both interfaces",
                "document.querySelectorAll('#ipoib-live-chart polyline').length", v -> Integer.parseInt(v) >= 6);
        String legend = text("#ipoib-live-legend");
        assertTrue(legend, legend.contains("ib0_1_ffff: rx") && legend.contains("ib1_1_ffff: rx"));

        appliance.shell("ipoib:neigh flush");
        browser.await("10.0.0.2 gone from the neighbours table", "document.getElementById('ipoib-neighbours').textContent",
                v -> !v.contains("10.0.0.2"));
        appliance.shell("ipoib:ping -c 3 -i 0.01 10.0.0.2");
        browser.await("10.0.0.2 back in the neighbours table", "document.getElementById('ipoib-neighbours').textContent",
                v -> v.contains("10.0.0.2") && v.contains("RESOLVED"));
        // The ping's traffic shows in the next samples: the chart's rx line of ib1 rises above zero.
        browser.await("rx packets/s above zero in the page", "document.getElementById('ipoib-live-legend').textContent",
                v -> Pattern.compile("ib1_1_ffff: rx [1-9]").matcher(v).find()
                        || maxOfSeries("ib1_1_ffff") > 0);
        assertEquals("the same page, never reloaded", "yes", browser.eval("window.ipoibSamePage"));
        assertEquals("no poll failed", "null", browser.eval("document.getElementById('ipoib-refresh').getAttribute('data-error')"));
        browser.screenshot(SHOTS.resolve("ipoib.png"));
        assertTrue(Files.size(SHOTS.resolve("ipoib.png")) > 10_000);
    }

    private static long maxOfSeries(String link) {
        try {
            String json = get("/system/console/ipoib/rates.json").body();
            Matcher m = Pattern.compile("\"" + link + "\":\\{\"rx\":\\[([0-9,]*)\\]").matcher(json);
            long max = 0;
            if (m.find() && !m.group(1).isEmpty()) {
                for (String v : m.group(1).split(",")) {
                    max = Math.max(max, Long.parseLong(v));
                }
            }
            return max;
        } catch (Exception e) {
            return 0;
        }
    }

    @Test
    public void fabricPageDrawsTheSubnetAndItsFormSetsAFault() throws Exception {
        browser.navigate(base + "/system/console/ipoib-fabric");
        assertEquals("two ports in the picture", "2", browser.eval("document.querySelectorAll('#fabric-picture .fabric-port').length"));
        assertEquals("the default partition, both ports full members", "2",
                browser.eval("Array.from(document.querySelectorAll('#fabric-partition-7fff text')).filter(t => t.textContent === 'F').length"));
        assertTrue(text("#fabric-sm"), text("#fabric-sm").contains("SM LID 1"));
        assertTrue("the broadcast group with both members",
                Integer.parseInt(browser.eval("document.querySelectorAll('#fabric-picture .fabric-group').length")) >= 1);
        browser.screenshot(SHOTS.resolve("fabric.png"));

        // The form, filled and submitted in the browser, as an operator does.
        browser.eval("(() => { const f = document.getElementById('fabric-fault-form');"
                + " f.kind.value = 'loss'; f.value.value = '7'; f.port.value = 'loop1/1'; f.submit(); return 'sent'; })()");
        // The address changes when the answer's navigation commits, before its document is parsed: the
        // page's elements are read once it has loaded.
        browser.await("the result of the form, loaded", "document.readyState + ' ' + location.search",
                v -> v.startsWith("complete ") && v.contains("result="));
        String faults = appliance.shell("fabric:faults");
        assertTrue(faults, faults.contains("loop1/1: loss=7%"));
        assertTrue(text("#fabric-faults"), text("#fabric-faults").contains("loop1/1: loss=7%"));

        browser.eval("document.getElementById('fabric-clear-form').submit()");
        browser.await("faults cleared, loaded", "document.readyState + ' ' + location.search",
                v -> v.startsWith("complete ") && v.contains("cleared"));
        assertTrue(appliance.shell("fabric:faults").contains("loop1/1: loss=0%"));
    }

    /**
     * A poll that gets no answer holds up neither the page's other tables nor its next polls: while
     * the CM listing is left unanswered, the page says so and a flushed neighbour still leaves the
     * neighbours table; answered again, whole rounds of polls succeed. (A poll refused for want of
     * credentials, which a browser keeps waiting at its login prompt, is such a poll.)
     */
    @Test
    public void aPollWithoutAnAnswerHoldsUpNeitherTheOtherTablesNorTheNextPolls() throws Exception {
        openIpoibPageWithTheNeighbourResolved();
        // The page gives a request up after live.js's TIMEOUT_MILLIS (3 s at least); 0.5 s for this page,
        // whose every round waits that long for the request left without an answer.
        assertEquals("3000", browser.eval("TIMEOUT_MILLIS"));
        browser.eval("TIMEOUT_MILLIS = 500");
        String error = "document.getElementById('ipoib-refresh').getAttribute('data-error')";
        String neighbours = "document.getElementById('ipoib-neighbours').textContent";
        try {
            browser.leaveUnanswered("*/system/console/ipoib/cm.json");
            browser.await("the page names the poll without an answer", error,
                    v -> v.contains("ipoib/cm.json: no answer within 500 ms"));
            appliance.shell("ipoib:neigh flush");
            browser.await("10.0.0.2 gone from the neighbours table while cm.json is unanswered", neighbours,
                    v -> !v.contains("10.0.0.2"));
        } finally {
            browser.answerRequestsAgain();
        }
        awaitAWholeRoundOfPolls();
        assertTrue(appliance.shell("ipoib:ping -c 1 10.0.0.2").contains("1 received"));
        browser.await("10.0.0.2 back in the neighbours table", neighbours, v -> v.contains("10.0.0.2") && v.contains("RESOLVED"));
        awaitAWholeRoundOfPolls();
        assertEquals("the same page, never reloaded", "yes", browser.eval("window.ipoibSamePage"));
    }

    /** Waits for a round of the open page's polls, begun from now on, whose every answer was drawn. */
    private static void awaitAWholeRoundOfPolls() throws Exception {
        String rounds = "Number(document.getElementById('ipoib-refresh').getAttribute('data-refreshed'))";
        long before = Long.parseLong(browser.eval(rounds));
        browser.await("a round of polls with every answer drawn", rounds, v -> Long.parseLong(v) > before + 1);
    }

    /** Each page's data as JSON at its label + .json, parsed as JSON. */
    @Test
    public void everyPageHasItsDataAsJson() throws Exception {
        HttpResponse<String> ipoib = get("/system/console/ipoib.json");
        assertEquals(200, ipoib.statusCode());
        assertTrue(ipoib.headers().firstValue("Content-Type").orElse(""),
                ipoib.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> stack = (java.util.Map<String, Object>) Json.parse(ipoib.body());
        assertEquals(java.util.List.of("links", "counters", "neighbours", "groups", "refused"), java.util.List.copyOf(stack.keySet()));
        String links = String.valueOf(stack.get("links"));
        assertTrue(links, links.contains("interface=ib0_1_ffff") && links.contains("state=UP"));
        for (String page : new String[] {"ipoib-verbs", "ipoib-events", "ipoib-fabric"}) {
            HttpResponse<String> r = get("/system/console/" + page + ".json");
            assertEquals(page, 200, r.statusCode());
            assertTrue(page + ": " + r.body(), Json.parse(r.body()) instanceof java.util.Map);
        }
        assertTrue(get("/system/console/ipoib-verbs.json").body().contains("\"name\":\"loopback\""));
        assertTrue(get("/system/console/ipoib-events.json").body().contains("\"topic\":\"ipoib/link/UP\""));
        assertTrue(get("/system/console/ipoib-fabric.json").body().contains("\"port\":\"loop1/1\""));
    }

    /** The Felix status dump (inventory) has the stack: interfaces, counters, neighbours, groups, ports. */
    @Test
    public void theStatusDumpIncludesTheStack() throws Exception {
        HttpResponse<String> text = get("/system/console/status-ipoib.txt");
        assertEquals(text.body(), 200, text.statusCode());
        for (String part : new String[] {"*** IPoIB:", "links", "interface=ib0_1_ffff", "counters", "rxPackets=", "neighbours",
                "groups", "ports", "provider=loopback"}) {
            assertTrue(part + " in\n" + text.body(), text.body().contains(part));
        }
        HttpResponse<String> dump = get("/system/console/config/configuration-status.txt");
        assertEquals(200, dump.statusCode());
        assertTrue("the whole dump has the IPoIB section", dump.body().contains("*** IPoIB:")
                && dump.body().contains("interface=ib1_1_ffff"));
        HttpResponse<String> json = get("/system/console/status-ipoib.json");
        assertEquals(200, json.statusCode());
        assertTrue(json.body(), json.body().contains("\"interface\":\"ib1_1_ffff\""));
    }

    /**
     * A fault set from the shell shows on the open Fabric page without a reload; taking a port down
     * from the page asks first (Confirm focused for the keyboard), Cancel does nothing, Confirm does it.
     */
    @Test
    public void fabricPageShowsAFaultLiveAndAsksBeforeAPortGoesDown() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        browser.navigate(base + "/system/console/ipoib-fabric");
        browser.eval("window.ipoibSamePage = 'yes'");
        try {
            appliance.shell("fabric:fault loss 30 loop1/1");
            browser.await("loop1/1 drawn with its fault", "document.getElementById('fabric-port-loop1-1').getAttribute('class')"
                    + " + ' ' + document.getElementById('fabric-port-loop1-1').textContent", v -> v.contains("port-fault")
                    && v.contains("loss 30%"));
            browser.await("the ports table and the faults text", "document.getElementById('fabric-ports').textContent"
                    + " + document.getElementById('fabric-faults').textContent", v -> v.contains("loss 30%")
                    && v.contains("loop1/1: loss=30%"));
            assertEquals("yes", browser.eval("window.ipoibSamePage"));
            browser.screenshot(SHOTS.resolve("fabric-fault.png"));
        } finally {
            appliance.shell("fabric:clear");
        }

        browser.eval("(() => { const f = document.getElementById('fabric-port-form'); f.port.value = 'loop1/1';"
                + " f.action.value = 'down'; f.submit(); return 'sent'; })()");
        browser.await("the confirmation", "(document.getElementById('fabric-confirm-question') || {textContent: ''}).textContent",
                v -> v.contains("Take port loop1/1 down?"));
        browser.await("Confirm has the focus: Enter confirms", "document.readyState + ' ' + String(document.activeElement"
                + " && document.activeElement.id)", v -> v.equals("complete fabric-confirm"));
        assertFalse("nothing done yet", appliance.shell("fabric:hcas").contains("DOWN"));
        browser.eval("document.getElementById('fabric-cancel').click()");
        browser.await("back on the page", "String(!!document.getElementById('fabric-port-form'))", v -> v.equals("true"));
        assertFalse("Cancel did nothing", appliance.shell("fabric:hcas").contains("DOWN"));

        browser.eval("(() => { const f = document.getElementById('fabric-port-form'); f.port.value = 'loop1/1';"
                + " f.action.value = 'down'; f.submit(); return 'sent'; })()");
        browser.await("the confirmation loaded, Confirm focused", "document.readyState + ' ' + String(document.activeElement"
                + " && document.activeElement.id)", v -> v.equals("complete fabric-confirm"));
        assertEquals("Confirm is the form's submit button, so Enter on it submits the form", "submit fabric-confirm-form",
                browser.eval("document.activeElement.type + ' ' + document.activeElement.form.id"));
        try {
            // Activates the focused element, as Enter does; CDP's synthetic Enter was now and then not
            // delivered to a page that had just been navigated to in headless Chromium.
            browser.eval("(() => { document.activeElement.click(); return 'activated'; })()");
            try {
                browser.await("the port down", "(document.getElementById('fabric-result') || {textContent: ''}).textContent"
                        + " || location.href + ' ' + document.body.textContent.slice(0, 300)", v -> v.contains("loop1/1 DOWN"));
            } catch (AssertionError notDown) {
                String err = appliance.stderr();
                throw new AssertionError(notDown.getMessage() + "\nfabric:hcas:\n" + appliance.shell("fabric:hcas")
                        + "\nthe appliance's last stderr:\n" + err.substring(Math.max(0, err.length() - 3000)), notDown);
            }
            assertTrue(appliance.shell("ipoib:links").contains("DOWN"));
            // The Verbs page follows the port without a reload: DOWN now, ACTIVE once it is up again.
            browser.navigate(base + "/system/console/ipoib-verbs");
            browser.eval("window.ipoibSamePage = 'yes'");
            assertTrue(text("#verbs-ports"), text("#verbs-ports").contains("DOWN"));
            appliance.shell("fabric:up loop1/1");
            browser.await("loop1/1 ACTIVE again on the Verbs page", "document.getElementById('verbs-ports').textContent",
                    v -> !v.contains("DOWN") && v.contains("loop1"));
            assertEquals("the same page, never reloaded", "yes", browser.eval("window.ipoibSamePage"));
            assertEquals("no poll failed", "null",
                    browser.eval("document.getElementById('ipoib-refresh').getAttribute('data-error')"));
        } finally {
            appliance.shell("fabric:up loop1/1");
            assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        }
    }

    /**
     * The connected-mode, path and netdev listings: served as the shell's {@code --json} prints
     * them, drawn as tables on the IPoIB page, and followed there without a reload (both interfaces
     * switched to connected mode and a ping: the connection appears).
     */
    @Test
    public void listingTablesShowTheShellsListingsAndFollowThemWithoutAReload() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        assertTrue(appliance.shell("ipoib:ping -c 1 10.0.0.2").contains("1 received"));
        for (String listing : new String[] {"cm", "paths", "netdev"}) {
            HttpResponse<String> served = get("/system/console/ipoib/" + listing + ".json");
            assertEquals(listing, 200, served.statusCode());
            assertTrue(served.headers().firstValue("Content-Type").orElse("").startsWith("application/json"));
            assertEquals("ipoib/" + listing + ".json is the shell's ipoib:" + listing + " --json",
                    Json.parse(jsonLine(appliance.shell("ipoib:" + listing + " --json"))), Json.parse(served.body()));
        }
        String destination = jsonLine(appliance.shell("ipoib:paths ib0_1_ffff --json"))
                .replaceAll("(?s).*\"destinationGid\":\"([^\"]+)\".*", "$1");
        browser.navigate(base + "/system/console/ipoib");
        browser.eval("window.ipoibSamePage = 'yes'");
        String paths = text("#ipoib-paths");
        assertTrue("ib0_1_ffff's path to " + destination + ": " + paths,
                paths.contains("ib0_1_ffff") && paths.contains(destination));
        assertTrue(text("#ipoib-path-counters"), text("#ipoib-path-counters").contains("ib1_1_ffff"));
        assertTrue(text("#ipoib-netdev"), text("#ipoib-netdev").contains("no bridged interfaces"));
        assertTrue(text("#ipoib-netdev-parked"), text("#ipoib-netdev-parked").contains("no parked devices"));
        String cm = text("#ipoib-cm");
        assertTrue(cm, cm.contains("ib0_1_ffff") && cm.contains("datagram") && !cm.contains("connected"));
        assertTrue(text("#ipoib-cm-connections"), text("#ipoib-cm-connections").contains("no connections"));
        try {
            assertTrue(appliance.shell("ipoib:mode ib0_1_ffff connected").contains("mode connected configured"));
            assertTrue(appliance.shell("ipoib:mode ib1_1_ffff connected").contains("mode connected configured"));
            String up = appliance.shell("ipoib:await all 30");
            assertTrue(up, up.contains("ib0_1_ffff UP") && up.contains("ib1_1_ffff UP"));
            // A frame goes over a connection once the sender knows the peer's connected-mode flag, which
            // the peer's gratuitous ARP after its switch brings; until then it goes over UD, as in Linux.
            Await.until("ib0_1_ffff's neighbour 10.0.0.2 with the connected-mode flag, or none", Duration.ofSeconds(30),
                    Duration.ofMillis(100), () -> connectedFlagKnownOrUnresolved("ib0_1_ffff", "10.0.0.2"),
                    () -> shell("ipoib:neigh"));
            String ping = appliance.shell("ipoib:ping -c 1 -I ib0_1_ffff 10.0.0.2");
            assertTrue(ping, ping.contains("1 received"));
            browser.await("both interfaces in connected mode in the CM table", "document.getElementById('ipoib-cm').textContent",
                    v -> !v.contains("datagram") && v.contains("0x"));
            browser.await("ib0_1_ffff's connection to ib1_1_ffff, UP", "document.getElementById('ipoib-cm-connections').textContent",
                    v -> v.contains("ib0_1_ffff") && v.contains("tx") && v.contains("UP"));
            assertEquals("the same page, never reloaded", "yes", browser.eval("window.ipoibSamePage"));
            assertEquals("no poll failed", "null",
                    browser.eval("document.getElementById('ipoib-refresh').getAttribute('data-error')"));
        } finally {
            appliance.shell("ipoib:mode ib0_1_ffff datagram");
            appliance.shell("ipoib:mode ib1_1_ffff datagram");
            String back = appliance.shell("ipoib:await all 30");
            assertTrue(back, back.contains("ib0_1_ffff UP") && back.contains("ib1_1_ffff UP"));
        }
    }

    /** The one JSON line a listing command printed. */
    /**
     * Whether {@code link}'s entry for {@code address} is absent or carries the connected-mode flag
     * in its link-layer address (0x80 of the first octet, Linux's IPOIB_FLAGS_RC).
     */
    private static boolean connectedFlagKnownOrUnresolved(String link, String address) {
        @SuppressWarnings("unchecked")
        java.util.Map<String, Object> json = (java.util.Map<String, Object>) Json.parse(
                jsonLine(shell("ipoib:neigh " + link + " --json")));
        for (Object o : (java.util.List<?>) json.get("neighbours")) {
            java.util.Map<?, ?> n = (java.util.Map<?, ?>) o;
            if (address.equals(n.get("address")) && n.get("linkAddress") instanceof String l) {
                return (Integer.parseInt(l.substring(0, 2), 16) & 0x80) != 0;
            }
        }
        return true;
    }

    private static String jsonLine(String output) {
        return output.lines().map(String::strip).map(l -> l.substring(Math.max(0, l.indexOf('{'))))
                .filter(l -> l.startsWith("{")).findFirst().orElseThrow(() -> new AssertionError("no JSON in " + output));
    }

    /** The pages' script comes with the configured interval; a value out of range is refused. */
    @Test
    public void theRefreshIntervalIsAConsoleSetting() throws Exception {
        HttpResponse<String> script = get("/system/console/ipoib/live.js");
        assertEquals(200, script.statusCode());
        assertTrue("the interval set for this class", script.body().contains("var REFRESH_MILLIS = " + REFRESH_MILLIS + ";"));
        assertEquals("never cached", "no-store", script.headers().firstValue("Cache-Control").orElse(""));
        String refused = appliance.shell("ipoib:config ipoib.console refreshMillis 50");
        assertTrue(refused, refused.contains("invalid ipoib.console property 'refreshMillis' value 50 is out of range: "
                + "allowed 200..60000; nothing was changed"));
        assertTrue(Pattern.compile("refreshMillis\\s+= " + REFRESH_MILLIS).matcher(appliance.shell("ipoib:config ipoib.console")).find());
    }

    @Test
    public void verbsAndEventsPages() throws Exception {
        browser.navigate(base + "/system/console/ipoib-verbs");
        String ports = text("#verbs-ports");
        assertTrue(ports, ports.contains("loopback") && ports.contains("loop0") && ports.contains("loop1")
                && ports.contains("ACTIVE"));
        String providers = text("#verbs-providers");
        assertTrue(providers, providers.contains("loopback") && providers.contains("true"));
        browser.navigate(base + "/system/console/ipoib-events");
        String events = text("#ipoib-events");
        assertTrue(events, events.contains("ipoib/link/UP") && events.contains("ib0_1_ffff"));
    }

    @Test
    public void stateChangingPostsNeedTheTokenAndTheOwnOrigin() throws Exception {
        HttpResponse<String> noToken = post("/system/console/ipoib-fabric", "action=fault&kind=loss&value=50");
        assertEquals(noToken.body(), 403, noToken.statusCode());
        assertTrue(noToken.body(), noToken.body().contains("anti-forgery token"));
        assertTrue("nothing changed", appliance.shell("fabric:faults").contains("loop0/1: loss=0%"));

        String page = get("/system/console/ipoib-fabric").body();
        Matcher token = Pattern.compile("name='ipoib_token' value='([^']+)'").matcher(page);
        assertTrue(page, token.find());
        HttpResponse<String> otherSite = HTTP.send(HttpRequest.newBuilder(URI.create(base + "/system/console/ipoib-fabric"))
                .header("Authorization", auth).header("Content-Type", "application/x-www-form-urlencoded").header("Origin", "http://attacker.example")
                .POST(HttpRequest.BodyPublishers.ofString("action=fault&kind=loss&value=50&ipoib_token=" + token.group(1)))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertEquals(otherSite.body(), 403, otherSite.statusCode());
        HttpResponse<String> wrongToken = post("/system/console/ipoib-fabric", "action=clear&ipoib_token=guess");
        assertEquals(403, wrongToken.statusCode());
        HttpResponse<String> ok = post("/system/console/ipoib-fabric", "action=clear&ipoib_token=" + token.group(1));
        assertEquals(ok.body(), 302, ok.statusCode());
    }

    @Test
    public void listeningOnTheNetworkWithoutCredentialsIsRefused() throws Exception {
        String set = appliance.shell("ipoib:config ipoib.console host 0.0.0.0");
        assertTrue(set, set.contains("invalid ipoib.console property 'host' value '0.0.0.0': "
                + "a non-loopback address needs 'username' and 'password'") && set.contains("nothing was changed"));
        assertTrue("not stored", !appliance.shell("ipoib:config ipoib.console").contains("= 0.0.0.0"));
        assertEquals("still served locally", 200, get("/metrics").statusCode());
        String own = ConsoleRemoteAccess.ownAddress().getHostAddress();
        String port = base.substring(base.lastIndexOf(':') + 1);
        try (java.net.Socket s = new java.net.Socket()) {
            s.connect(new java.net.InetSocketAddress(own, Integer.parseInt(port)), 5000);
            throw new AssertionError("the console accepted a connection on " + own + ":" + port);
        } catch (java.net.ConnectException refused) {
            // Nothing listens there: the listen address stayed 127.0.0.1.
        }
        // Back to the launch address: no change, so the HTTP service is not restarted.
        appliance.shell("ipoib:config ipoib.console host 127.0.0.1");
        assertEquals(200, get("/metrics").statusCode());
    }

    /** What curl got: the status and the body. */
    private record Curl(int status, String body) {}

    /** curl as a user runs it against the console; {@code args} come before the URL. */
    private static Curl curl(String path, String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("curl", "-s", "--path-as-is",
                "-o", "-", "-w", "\n%{http_code}"));
        command.addAll(java.util.List.of(args));
        command.add(base + path);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("curl finished", p.waitFor(60, TimeUnit.SECONDS));
        int cut = out.lastIndexOf('\n');
        return new Curl(Integer.parseInt(out.substring(cut + 1).strip()), out.substring(0, cut));
    }

    private static String token() throws Exception {
        Matcher token = Pattern.compile("name='ipoib_token' value='([^']+)'").matcher(get("/system/console/ipoib-fabric").body());
        assertTrue(token.find());
        return token.group(1);
    }

    @Test
    public void everyRequestNeedsCredentialsAlsoFromLoopback() throws Exception {
        String[] printed = appliance.printedCredentials();
        assertEquals("ipoib", printed[0]);
        Path file = Path.of(printed[2]);
        assertEquals("the generated password is kept for the user who started the appliance only", "rw-------",
                java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals(printed[1], Files.readString(file).strip());
        java.util.List<String> paths = java.util.List.of("/metrics", "/system/console/ipoib", "/system/console/bundles",
                "/system/console/configMgr", "/system/console/%69poib-fabric");
        java.util.List<Integer> refused = java.util.List.of(401, 401, 401, 401, 401);
        assertEquals("anonymous " + paths, refused, statuses(paths));
        assertEquals("a wrong password " + paths, refused, statuses(paths, "-u", "ipoib:guess"));
        // A wrong password costs the console one PBKDF2 derivation, however often it is repeated.
        assertEquals("a default account", java.util.List.of(401, 401),
                statuses(java.util.List.of("/metrics", "/system/console/ipoib"), "-u", "admin:admin"));
        assertEquals(java.util.List.of(200, 200), statuses(java.util.List.of("/metrics", "/system/console/ipoib"),
                "-u", printed[0] + ":" + printed[1]));
    }

    /** One curl for several paths, as a user runs it with several URLs: the status of each, in order. */
    private static java.util.List<Integer> statuses(java.util.List<String> paths, String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("curl", "-s", "--path-as-is",
                "-w", "%{http_code}\n"));
        command.addAll(java.util.List.of(args));
        for (String path : paths) {
            command.addAll(java.util.List.of("-o", "/dev/null", base + path));
        }
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("curl finished", p.waitFor(60, TimeUnit.SECONDS));
        return out.lines().map(String::strip).map(Integer::parseInt).toList();
    }

    /**
     * A library under /tmp named through the configuration page is refused and never loaded (its
     * constructor would run as the appliance's user), and the attempt needs credentials and the token.
     */
    @Test
    public void theFabricProviderLoadsNoLibraryFromTmpThroughTheConsole() throws Exception {
        Path dir = Files.createTempDirectory("ipoib-evil-");
        Path marker = dir.resolve("constructor-ran");
        Path source = Files.writeString(dir.resolve("evil.c"), "#include <stdio.h>\n__attribute__((constructor)) "
                + "static void run(void) { FILE *f = fopen(\"" + marker + "\", \"w\"); if (f) fclose(f); }\n");
        Process gcc = new ProcessBuilder("gcc", "-shared", "-fPIC", "-o", dir.resolve("evil.so").toString(),
                source.toString()).redirectErrorStream(true).start();
        String gccOut = new String(gcc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue("gcc: " + gccOut, gcc.waitFor(60, TimeUnit.SECONDS) && gcc.exitValue() == 0);
        String form = "apply=true&action=ajaxConfigManager&propertylist=verbsLibrary&verbsLibrary=" + dir.resolve("evil.so");
        String pid = "/system/console/configMgr/ipoib.verbs.fabric";
        assertEquals(401, curl(pid, "-X", "POST", "-d", form).status());
        assertEquals(403, curl(pid, "-X", "POST", "-d", form, "-H", "Authorization: " + auth).status());
        Curl applied = curl(pid, "-X", "POST", "-d", form + "&ipoib_token=" + token(), "-H", "Authorization: " + auth);
        assertTrue(applied.status() + " " + applied.body(), applied.status() < 400);
        // The provider refuses what the form stored, keeps running and stores its configuration in force
        // again; the listing shows the refused value beside the one in force.
        String refused = "ipoib.verbs.fabric: configuration refused: invalid fabric provider property 'verbsLibrary' value '"
                + dir.resolve("evil.so") + "'";
        Await.until("the refusal and the configuration in force stored again", Duration.ofSeconds(60),
                () -> appliance.stderr().contains(refused)
                        && !inForce(shell("ipoib:config ipoib.verbs.fabric"), "verbsLibrary").contains("evil.so"),
                () -> appliance.stderr());
        String line = appliance.stderr().lines().filter(l -> l.contains(refused)).findFirst().orElse("none");
        assertTrue(line, line.contains("nothing was loaded"));
        String listing = appliance.shell("ipoib:config ipoib.verbs.fabric");
        assertFalse(listing, inForce(listing, "verbsLibrary").contains("evil.so"));
        assertTrue(listing, listing.contains("last update refused: "));
        browser.navigate(base + "/system/console/ipoib");
        String table = text("#ipoib-refused");
        assertTrue("the IPoIB page's refused configurations: " + table, table.contains("ipoib.verbs.fabric")
                && table.contains("verbsLibrary = " + dir.resolve("evil.so")));
        assertFalse("the library's constructor ran", Files.exists(marker));
    }

    /** A property's row of an {@code ipoib:config} listing without the refused value shown beside it. */
    private static String inForce(String listing, String property) {
        String row = listing.lines().map(String::strip).filter(l -> l.startsWith(property + " ")).findFirst()
                .orElseThrow(() -> new AssertionError("no row " + property + " in\n" + listing));
        int refused = row.indexOf("  refused ");
        return refused < 0 ? row : row.substring(0, refused);
    }

    @Test
    public void theWebConsolesBundleInstallAndConfigurationNeedTheToken() throws Exception {
        String before = appliance.shell("lb");
        for (String path : new String[] {"/system/console/bundles", "/system/console/configMgr/ipoib.arp"}) {
            Curl noToken = curl(path, "-X", "POST", "-H", "Authorization: " + auth, "-F", "action=install",
                    "-F", "bundlestart=start", "-F", "bundlefile=@/dev/null");
            assertEquals(path + ": " + noToken.body(), 403, noToken.status());
            assertTrue(noToken.body(), noToken.body().contains("anti-forgery token"));
        }
        assertEquals(403, curl("/system/console/configMgr/ipoib.arp", "-X", "POST", "-H", "Authorization: " + auth,
                "-d", "apply=true&action=ajaxConfigManager&propertylist=retransmitMillis&retransmitMillis=1234").status());
        assertEquals("no bundle was installed", before.lines().count(), appliance.shell("lb").lines().count());
        assertFalse(appliance.shell("ipoib:config ipoib.arp").contains("1234"));

        // The Web Console's configuration page lists the project's PIDs from their metatype; its own
        // script, which knows nothing of the token, still saves a configuration.
        browser.navigate(base + "/system/console/configMgr");
        browser.await("the configuration page lists ipoib.console and ipoib.arp", "document.body.textContent",
                v -> v.contains("ipoib console access") && v.contains("ipoib.arp"));
        browser.eval("(() => { $.post('" + base + "/system/console/configMgr/ipoib.arp', {apply: 'true', action: "
                + "'ajaxConfigManager', propertylist: 'retransmitMillis', retransmitMillis: '1700'}); return 'sent'; })()");
        Await.until("retransmitMillis = 1700 stored through the Web Console's page", Duration.ofSeconds(60),
                () -> Pattern.compile("retransmitMillis\\s+= 1700").matcher(shell("ipoib:config ipoib.arp")).find(),
                () -> shell("ipoib:config ipoib.arp"));
    }

    /** A page of another site whose name was rebound to 127.0.0.1 sends its own name as Host. */
    @Test
    public void anotherSitesHostNameIsRefused() throws Exception {
        String port = base.substring(base.lastIndexOf(':') + 1);
        Curl page = curl("/system/console/ipoib-fabric", "-H", "Authorization: " + auth, "-H", "Host: evil.example:" + port);
        assertEquals(page.body(), 403, page.status());
        assertFalse("no token leaks", page.body().contains("ipoib_token"));
        Curl post = curl("/system/console/configMgr/ipoib.arp", "-X", "POST", "-H", "Authorization: " + auth,
                "-H", "Host: evil.example:" + port, "-H", "Origin: http://evil.example:" + port,
                "-d", "apply=true&action=ajaxConfigManager&propertylist=retransmitMillis&retransmitMillis=4321&ipoib_token="
                        + token());
        assertEquals(post.body(), 403, post.status());
        assertFalse(appliance.shell("ipoib:config ipoib.arp").contains("4321"));
        assertEquals(200, curl("/metrics", "-H", "Authorization: " + auth, "-H", "Host: localhost:" + port).status());
    }

    @Test
    public void anEncodedPathDoesNotEscapeTheTokenCheck() throws Exception {
        Curl encoded = curl("/system/console/%69poib-fabric", "-X", "POST", "-H", "Authorization: " + auth,
                "-d", "action=fault&kind=loss&value=100");
        assertEquals(encoded.body(), 403, encoded.status());
        assertTrue(appliance.shell("fabric:faults").contains("loop0/1: loss=0%"));
    }

    @Test
    public void aGetOfThePathFormSendsNoQuery() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        appliance.shell("ipoib:neigh flush");
        HttpResponse<String> page = get("/system/console/ipoib?destination=10.0.0.2");
        assertEquals(200, page.statusCode());
        assertFalse(page.body(), page.body().contains("id='ipoib-path'"));
        assertFalse("no ARP was sent for the GET", appliance.shell("ipoib:neigh").contains("10.0.0.2"));
        HttpResponse<String> asked = post("/system/console/ipoib", "destination=10.0.0.2&ipoib_token=" + token());
        assertEquals(200, asked.statusCode());
        assertTrue(asked.body(), asked.body().contains("id='ipoib-path'") && asked.body().contains("DGID"));
    }

    @Test
    public void metricsPassPromtoolAndCountAPing() throws Exception {
        HttpResponse<String> first = get("/metrics");
        assertEquals(200, first.statusCode());
        assertTrue(first.headers().firstValue("Content-Type").orElse(""), first.headers().firstValue("Content-Type")
                .orElse("").startsWith("text/plain; version=0.0.4"));
        Promtool.check(first.body());
        long before = sample(first.body(), "ipoib_link_rx_packets_total{interface=\"ib1_1_ffff\"}");
        String ping = appliance.shell("ipoib:ping -c 3 -i 0.01 10.0.0.2");
        assertTrue(ping, ping.contains("3 received"));
        long after = sample(get("/metrics").body(), "ipoib_link_rx_packets_total{interface=\"ib1_1_ffff\"}");
        assertTrue("3 echo requests reached ib1_1_ffff: " + before + " -> " + after, after >= before + 3);
        String body = get("/metrics").body();
        for (String family : new String[] {"ipoib_link_tx_packets_total", "ipoib_neighbours{family=\"ipv4\"",
                "ipoib_mcast_joins_total", "ipoib_host_echo_requests_sent_total", "ipoib_fabric_delivered_packets_total",
                "ipoib_fabric_drops_total{reason=", "ipoib_fabric_sa_requests_total{attribute=\"MCMemberRecord\"",
                "ipoib_fabric_sa_answers_total{status=\"success\"}", "ipoib_arp_", "ipoib_nd_",
                "ipoib_sa_client_requests_total{device=\"loop0\",port=\"1\"}", "ipoib_sa_client_pending_requests{",
                "ipoib_link_info{device=\"loop0\",gid=\"", "ipoib_link_flaps_total{interface=\"ib0_1_ffff\"}",
                "ipoib_port_state{device=\"loop0\",port=\"1\"} 4", "ipoib_port_rate_bytes_per_second{",
                "ipoib_ib_port_data_transmitted_bytes_total{device=\"loop0\",port=\"1\"}",
                "ipoib_link_path_resolution_duration_seconds_bucket{interface=\"ib0_1_ffff\",le=\"0.001\"}",
                "ipoib_mcast_join_duration_seconds_count{", "ipoib_sa_client_round_trip_duration_seconds_sum{",
                "# TYPE jvm_memory_used_bytes gauge", "process_cpu_seconds_total"}) {
            assertTrue("metrics have " + family, body.contains(family));
        }
        for (String renamed : new String[] {"ipoib_fabric_sa_answers_0x", "_mcmemberrecord_", "Counter "}) {
            assertFalse("no value baked into a name, no generated help: " + renamed, body.contains(renamed));
        }
    }

    private static long sample(String metrics, String series) {
        for (String line : metrics.split("\n")) {
            if (line.startsWith(series + " ")) {
                return (long) Double.parseDouble(line.substring(series.length() + 1).strip());
            }
        }
        throw new AssertionError("no sample " + series + " in\n" + metrics);
    }


    @Test
    public void eventsAndConfigCommands() throws Exception {
        String events = appliance.shell("ipoib:events");
        assertTrue(events, events.contains("ipoib/link/UP") && events.contains("link=ib1_1_ffff"));
        String follow = appliance.shell("ipoib:events -f 1");
        assertTrue(follow, follow.contains("ipoib/link/UP"));
        String bad = appliance.shell("ipoib:events -x");
        assertTrue(bad, bad.contains("usage: ipoib:events [-f [seconds]]"));

        String arp = appliance.shell("ipoib:config ipoib.arp");
        assertTrue(arp, Pattern.compile("retransmitMillis\\s+(\\(default\\)|= \\d+)\\s+allowed 10\\.\\.60000\\s").matcher(arp).find());
        String refused = appliance.shell("ipoib:config ipoib.arp retransmitMillis 5");
        assertTrue(refused, refused.contains("invalid ipoib.arp property 'retransmitMillis' value 5 is out of range: allowed 10..60000; nothing was changed"));
        assertEquals("nothing set", rows(arp), rows(appliance.shell("ipoib:config ipoib.arp")));
        String set = appliance.shell("ipoib:config ipoib.arp retransmitMillis 1500");
        assertTrue(set, set.contains("ipoib.arp: retransmitMillis = 1500"));
        assertTrue(Pattern.compile("retransmitMillis\\s+= 1500").matcher(appliance.shell("ipoib:config ipoib.arp")).find());
        String word = appliance.shell("ipoib:config ipoib.arp gratuitous maybe");
        assertTrue(word, word.contains("invalid ipoib.arp property 'gratuitous' value 'maybe' is not a boolean: allowed true or false; nothing was changed"));
        String unknown = appliance.shell("ipoib:config ipoib.nosuch");
        assertTrue(unknown, unknown.contains("no metatype describes PID 'ipoib.nosuch'"));
    }

    /** The property rows of an {@code ipoib:config} listing (value, allowed, default), nothing else. */
    private static java.util.List<String> rows(String listing) {
        Pattern row = Pattern.compile("^\\S+\\s+(\\(default\\)|= ).*\\sallowed\\s.*$");
        return listing.lines().map(String::strip).filter(l -> row.matcher(l).matches()).toList();
    }

    @Test
    public void pagesAndMetricsComeAndGoWithTheirBundles() throws Exception {
        String id = bundleId("ipoib.verbs.loopback");
        appliance.shell("stop " + id);
        awaitStatus("/system/console/ipoib-fabric", 404);
        assertFalse(get("/metrics").body().contains("ipoib_fabric_"));
        assertEquals(200, get("/system/console/ipoib").statusCode());
        appliance.shell("start " + id);
        awaitStatus("/system/console/ipoib-fabric", 200);
        String up = appliance.shell("ipoib:await all 30");
        assertTrue(up, up.contains("ib0_1_ffff UP"));
        assertTrue(get("/metrics").body().contains("ipoib_fabric_delivered_packets_total"));

        String link = bundleId("ipoib.link");
        appliance.shell("stop " + link);
        awaitBody("/metrics", b -> !b.contains("ipoib_link_rx_packets_total"));
        assertTrue(get("/system/console/ipoib").body().contains("no interfaces"));
        appliance.shell("start " + link);
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        awaitBody("/metrics", b -> b.contains("ipoib_link_rx_packets_total{interface=\"ib1_1_ffff\"}"));
        browser.navigate(base + "/system/console/ipoib");
        assertTrue(text("#ipoib-links").contains("ib1_1_ffff"));
    }

    private static String bundleId(String symbolicName) throws Exception {
        String lb = appliance.shell("lb -s " + symbolicName);
        Matcher m = Pattern.compile("^\\s*(\\d+)\\|\\w+\\s*\\|\\s*\\d+\\|" + Pattern.quote(symbolicName) + "\\b",
                Pattern.MULTILINE).matcher(lb);
        assertTrue(lb, m.find());
        return m.group(1);
    }

    private static void awaitStatus(String path, int status) {
        int[] last = {-1};
        Await.until(path + " answering " + status, Duration.ofSeconds(60), () -> (last[0] = response(path).statusCode()) == status,
                () -> "last answer " + last[0]);
    }

    private static void awaitBody(String path, java.util.function.Predicate<String> condition) {
        String[] last = {""};
        Await.until(path + " reaching the expected content", Duration.ofSeconds(60),
                () -> condition.test(last[0] = response(path).body()), () -> last[0]);
    }

    /** {@link #get} for a condition polled by {@link Await}. */
    private static HttpResponse<String> response(String path) {
        try {
            return get(path);
        } catch (Exception e) {
            throw new AssertionError("GET " + path, e);
        }
    }

    /** {@link RunningAppliance#shell} for a condition polled by {@link Await}. */
    private static String shell(String command) {
        try {
            return appliance.shell(command);
        } catch (java.io.IOException e) {
            throw new AssertionError(command, e);
        }
    }

    /**
     * The IPoIB page, marked so that a reload shows (a reload drops the property set on its window),
     * with every interface UP and 10.0.0.2 resolved: other tests of the class restart bundles.
     */
    private void openIpoibPageWithTheNeighbourResolved() throws Exception {
        assertTrue(appliance.shell("ipoib:await all 30").contains("ib1_1_ffff UP"));
        assertTrue(appliance.shell("ipoib:ping -c 1 10.0.0.2").contains("1 received"));
        browser.navigate(base + "/system/console/ipoib");
        browser.eval("window.ipoibSamePage = 'yes'");
    }
}
