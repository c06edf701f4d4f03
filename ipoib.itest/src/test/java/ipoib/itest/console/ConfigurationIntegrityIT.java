package ipoib.itest.console;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import ipoib.itest.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Configuration integrity in the appliance as a user runs it (default interfaces, whose
 * configurations have no {@code name}): {@code ipoib:mode} acts on the interface named and
 * {@code ipoib:await} covers the switch; every kind of bad value for every PID is refused by
 * {@code ipoib:config} with one clear message, nothing of it is stored and what runs keeps running.
 * Runs on the appliance the console's test classes share, and leaves it as it found it.
 */
public class ConfigurationIntegrityIT {
    private static RunningAppliance appliance;

    @BeforeClass
    public static void start() throws Exception {
        appliance = RunningAppliance.shared();
        appliance.baseUrl();
        String up = appliance.shell("ipoib:await all 60");
        assertTrue(up, up.contains("ib0_1_ffff UP") && up.contains("ib1_1_ffff UP"));
    }

    @Test
    public void modeSwitchesTheInterfaceNamedAndAwaitCoversTheSwitch() throws Exception {
        String set = appliance.shell("ipoib:mode ib1_1_ffff connected");
        assertTrue(set, set.contains("ib1_1_ffff: mode connected configured"));
        String up = appliance.shell("ipoib:await ib1_1_ffff");
        assertTrue(up, up.contains("ib1_1_ffff UP"));
        String one = appliance.shell("ipoib:mode ib1_1_ffff");
        assertTrue(one, one.contains("ib1_1_ffff: connected, mtu 65520"));
        String zero = appliance.shell("ipoib:mode ib0_1_ffff");
        assertTrue(zero, zero.contains("ib0_1_ffff: datagram"));
        // Both ends connected: a datagram of 60 000 octets goes in one piece over the connection.
        assertTrue(appliance.shell("ipoib:mode ib0_1_ffff connected").contains("ib0_1_ffff: mode connected configured"));
        String both = appliance.shell("ipoib:await all");
        assertTrue(both, both.contains("ib0_1_ffff UP") && both.contains("ib1_1_ffff UP"));
        assertTrue(appliance.shell("ipoib:mode ib0_1_ffff").contains("ib0_1_ffff: connected, mtu 65520"));
        String big = appliance.shell("ipoib:ping -c 3 -i 0.01 -W 5 -s 60000 -I ib0_1_ffff 10.0.0.2");
        assertTrue(big, big.contains("60008 bytes from 10.0.0.2") && big.contains("3 packets transmitted, 3 received"));
        appliance.shell("ipoib:mode ib0_1_ffff datagram");
        appliance.shell("ipoib:mode ib1_1_ffff datagram");
        String back = appliance.shell("ipoib:await all");
        assertTrue(back, back.contains("ib0_1_ffff UP") && back.contains("ib1_1_ffff UP"));
        assertTrue(appliance.shell("ipoib:mode ib1_1_ffff").contains("ib1_1_ffff: datagram"));
        assertTrue(appliance.shell("ipoib:mode ib0_1_ffff").contains("ib0_1_ffff: datagram"));
    }

    /**
     * The Web Console's configuration form stores before any component sees the values: a bad
     * value posted there is refused by the component, which keeps running with the configuration
     * in force and stores it again, with one WARN line naming the property, the value (cut) and
     * what is allowed.
     */
    @Test
    public void aBadValuePostedThroughTheWebConsoleIsRefusedAndTheConfigurationInForceStoredAgain() throws Exception {
        String base = appliance.baseUrl();
        String auth = appliance.authorization();
        String[][] cases = {
                // PID, property, good value, bad value, what the WARN line says is allowed
                {"ipoib.arp", "retransmitMillis", "700", "5", "allowed 10..60000"},
                {"ipoib.arp", "serviceLevel", "path", "z".repeat(70_000), "allowed one of broadcast, path"},
                {"ipoib.nd", "dadTransmits", "2", "11", "allowed"},
                {"ipoib.mcast", "auditSeconds", "120", "4", "allowed 5..3600"},
                {"ipoib.host", "ttl", "9", "256", "allowed 1..255"},
                {"ipoib.verbs.fabric", "saRetries", "4", "21", "allowed 1..20"}};
        Matcher token = Pattern.compile("name='ipoib_token' value='([^']+)'").matcher(curl(base, "/system/console/ipoib",
                "-H", "Authorization: " + auth));
        assertTrue("the anti-forgery token", token.find());
        List<String> restore = new ArrayList<>();
        for (String[] c : cases) {
            restore.add("ipoib:config " + c[0] + " " + c[1] + " " + defaultOf(c[0], c[1]));
            post(base, auth, token.group(1), c[0], c[1], c[2]);
            awaitListed(c[0], c[1], c[2]);
            String refused = c[0] + ": configuration refused: invalid " + c[0] + " property '" + c[1] + "' value ";
            int before = count(appliance.stderr(), refused);
            post(base, auth, token.group(1), c[0], c[1], c[3]);
            Await.until("the refusal of " + c[0] + " " + c[1] + " logged", Duration.ofSeconds(30),
                    () -> count(appliance.stderr(), refused) > before, () -> tail(appliance.stderr()));
            List<String> lines = appliance.stderr().lines().filter(l -> l.contains(refused)).toList();
            assertEquals(c[0] + " " + c[1] + ": one WARN line:\n" + tail(appliance.stderr()), before + 1, lines.size());
            String line = lines.get(lines.size() - 1);
            String shown = c[3].length() > 80 ? c[3].substring(0, 80) + "…(" + c[3].length() + " chars)" : c[3];
            assertTrue(line, line.contains("WARN") && line.contains(shown) && line.contains(c[4])
                    && line.endsWith("; the configuration in force stays and is stored again") && line.length() < 400);
            awaitListed(c[0], c[1], c[2]);
            String row = listing(c[0]).lines().filter(l -> l.strip().startsWith(c[1] + " ")).findFirst().orElseThrow();
            assertTrue("the listing shows the refused value next to the one in force: " + row, row.endsWith("refused " + shown));
            String whole = appliance.shell("ipoib:config " + c[0]);
            assertTrue(whole, whole.contains("last update refused: invalid " + c[0] + " property '" + c[1] + "'"));
            String page = curl(base, "/system/console/ipoib.json", "-H", "Authorization: " + auth);
            assertTrue("the IPoIB page's refused configurations: " + page, page.contains("\"pid\":\"" + c[0] + "\""));
        }
        // They run with what is in force: the host answers with TTL 9, the interfaces reach each other.
        String ping = appliance.shell("ipoib:ping -c 2 -i 0.01 10.0.0.2");
        assertTrue(ping, ping.contains("2 received") && ping.contains("ttl=9"));
        assertEquals("no component failed", -1, appliance.stderr().indexOf("Error during instantiation"));
        for (String command : restore) {
            assertTrue(command, appliance.shell(command).contains(" = "));
        }
        // Another configuration taken: no refusal stands any more.
        String page = curl(base, "/system/console/ipoib.json", "-H", "Authorization: " + auth);
        for (String[] c : cases) {
            assertTrue(c[0] + " no longer listed as refused: " + page, !page.contains("\"pid\":\"" + c[0] + "\""));
        }
        String arp = appliance.shell("ipoib:config ipoib.arp");
        assertTrue(arp, !arp.contains("refused"));
    }

    /** The default {@code ipoib:config} shows for a property. */
    private static String defaultOf(String pid, String property) throws Exception {
        Matcher m = Pattern.compile("(?m)^\\s*" + Pattern.quote(property) + "\\s.*\\sdefault (\\S+)\\s*$")
                .matcher(appliance.shell("ipoib:config " + pid));
        assertTrue(pid + " " + property + " has a default", m.find());
        return m.group(1);
    }

    /** Posts one property through the Web Console's configuration form as its page does, with the token. */
    private static void post(String base, String auth, String token, String pid, String property, String value)
            throws Exception {
        String out = curl(base, "/system/console/configMgr/" + pid, "-X", "POST", "-H", "Authorization: " + auth,
                "--data-urlencode", "apply=true", "--data-urlencode", "action=ajaxConfigManager",
                "--data-urlencode", "propertylist=" + property, "--data-urlencode", property + "=" + value,
                "--data-urlencode", "ipoib_token=" + token);
        int status = Integer.parseInt(out.substring(out.lastIndexOf('\n') + 1).strip());
        assertTrue(pid + " " + property + ": " + out, status < 400);
    }

    private static String curl(String base, String path, String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("curl", "-s", "-o", "-", "-w", "\n%{http_code}"));
        command.addAll(List.of(args));
        command.add(base + path);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue("curl finished", p.waitFor(60, TimeUnit.SECONDS));
        return out;
    }

    /** Waits until ipoib:config shows {@code property = value} for the PID. */
    private static void awaitListed(String pid, String property, String value) {
        Pattern row = Pattern.compile("(?m)^\\s*" + Pattern.quote(property) + "\\s+= " + Pattern.quote(value) + "\\s");
        String[] shown = {""};
        Await.until(pid + ": " + property + " = " + value + " stored", Duration.ofSeconds(30),
                () -> row.matcher(shown[0] = listing(pid)).find(), () -> shown[0]);
    }

    private static int count(String text, String part) {
        int n = 0;
        for (int at = text.indexOf(part); at >= 0; at = text.indexOf(part, at + 1)) {
            n++;
        }
        return n;
    }

    private static String tail(String text) {
        return text.length() <= 4000 ? text : text.substring(text.length() - 4000);
    }

    /** One bad value: the PID, the property, the value, and a word the refusal must contain besides. */
    private record Bad(String pid, String property, String value) {}

    @Test
    public void everyKindOfBadValueIsRefusedClearlyAndNothingChanges() throws Exception {
        String link0 = factoryPid("ipoib.link", 0);
        String address0 = factoryPid("ipoib.address", 0);
        String longValue = "x".repeat(70_000);
        List<Bad> bad = new ArrayList<>();
        // The interface: ranges, types, forms the metatype cannot say, names and partitions in use, ports
        // the provider does not have, unknown properties.
        for (String[] pv : new String[][] {{"port", "0"}, {"port", "255"}, {"port", "abc"}, {"port", "99"},
                {"port", "2"}, {"port", "1.5"}, {"pkey", "0x1ffff"}, {"pkey", "0x8000"}, {"pkey", "0x0000"},
                {"pkey", "zz"}, {"pkey", ""}, {"name", "bad name!"}, {"name", "n".repeat(33)}, {"name", "ib1_1_ffff"},
                {"name", longValue}, {"device", "loop99"}, {"device", "loop1"}, {"device", ""}, {"scope", "0"},
                {"scope", "16"}, {"scope", "abc"}, {"sendQueueDepth", "0"}, {"sendQueueDepth", "8193"},
                {"receiveQueueDepth", "-1"}, {"receiveQueueDepth", "4294967297"}, {"mcastJoinTimeoutMillis", "5"},
                {"mcastRetryCount", "101"}, {"transmitTimeoutMillis", "1000000000"}, {"mode", "fast"},
                {"createBroadcastGroup", "maybe"}, {"provider.target", "(broken"}, {"nosuch", "1"}}) {
            bad.add(new Bad(link0, pv[0], pv[1]));
        }
        // An address: forms, an address held by another configuration (on this interface or another).
        for (String[] pv : new String[][] {{"address", "10.0.0.300/24"}, {"address", "10.0.0.2/24"},
                {"address", "10.0.0.1"}, {"address", "10.0.0.1/33"}, {"address", "fd00::1/129"},
                {"address", longValue}, {"link", "bad link!"}, {"nosuch", "1"}}) {
            bad.add(new Bad(address0, pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"retransmitMillis", "5"}, {"retransmitMillis", "60001"},
                {"retransmitMillis", "abc"}, {"requests", "0"}, {"requests", "101"}, {"unicastProbes", "11"},
                {"queueLength", "0"}, {"maxEntries", "15"}, {"serviceLevel", "x"}, {"gratuitous", "maybe"},
                {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.arp", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"dadTransmits", "11"}, {"interfaceIdentifier", "x"},
                {"linkLocal", "maybe"}, {"routerSolicitations", "-1"}, {"routerSolicitationIntervalMillis", "99"},
                {"autoconf", "2"}, {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.nd", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"pendingFramesPerGroup", "0"}, {"pendingFramesPerGroup", "4097"},
                {"maxGroupsPerLink", "15"}, {"auditSeconds", "4"}, {"sendOnlyIdleSeconds", "9"}, {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.mcast", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"ttl", "0"}, {"ttl", "256"}, {"answerEcho", "maybe"},
                {"echoIgnoreBroadcasts", "x"}, {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.host", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"host", "0.0.0.0"}, {"host", "192.0.2.1"}, {"port", "70000"},
                {"port", "abc"}, {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.console", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"hcas", "0"}, {"hcas", "1025"}, {"portsPerHca", "5"}, {"mtu", "100"},
                {"lmc", "8"}, {"subnetPrefix", "zz::"}, {"subnetPrefix", "fe80::1"}, {"nodeGuidBase", "g"},
                {"partitions", "Default=0x7fff, ipoib : loop99 ;"}, {"rate", "abc"}, {"nosuch", "1"}}) {
            bad.add(new Bad("ipoib.verbs.loopback", pv[0], pv[1]));
        }
        for (String[] pv : new String[][] {{"saTimeoutMillis", "5"}, {"saRetries", "21"}, {"nosuch", "1"},
                {"verbsLibrary", "/tmp/evil.so"}, {"umadLibrary", "../lib/libibumad.so.3"}, {"deviceFilter", "mlx5_("},
                {"smKey", "0x1ffffffffffffffff"}}) {
            bad.add(new Bad("ipoib.verbs.fabric", pv[0], pv[1]));
        }

        List<String> accepted = new ArrayList<>();
        List<String> unclear = new ArrayList<>();
        java.util.Map<String, String> listed = new java.util.HashMap<>(); // the last listing of each PID
        for (Bad b : bad) {
            String before = listed.computeIfAbsent(b.pid(), ConfigurationIntegrityIT::listing);
            String out = appliance.shell("ipoib:config " + b.pid() + " " + b.property() + " '" + b.value() + "'");
            String after = listing(b.pid());
            listed.put(b.pid(), after);
            String shown = b.value().length() > 80 ? b.value().substring(0, 80) + "…(" + b.value().length() + " chars)"
                    : b.value();
            if (!out.contains("nothing was changed") || !before.equals(after)) {
                accepted.add(b + " -> " + out.strip() + (before.equals(after) ? "" : "\n(stored configuration changed)"));
            } else if (!out.contains("'" + b.property() + "'")
                    || !(out.contains(shown) || b.value().contains(" ")) // a partitions line: its refused member is named
                    || !out.contains("allowed") || out.length() > 1_000
                    || out.contains("\tat ")) {
                unclear.add(b + " -> " + out.strip());
            }
        }
        System.out.println("bad-configuration sweep: " + bad.size() + " bad values, " + accepted.size()
                + " accepted, " + unclear.size() + " refused unclearly");
        assertTrue("accepted:\n" + String.join("\n", accepted), accepted.isEmpty());
        assertTrue("refused unclearly:\n" + String.join("\n", unclear), unclear.isEmpty());

        // What ran keeps running: both interfaces UP with their addresses, and they reach each other.
        String up = appliance.shell("ipoib:await all");
        assertTrue(up, up.contains("ib0_1_ffff UP") && up.contains("ib1_1_ffff UP"));
        String addresses = appliance.shell("ipoib:addr list");
        assertTrue(addresses, addresses.contains("10.0.0.1/24") && addresses.contains("10.0.0.2/24"));
        String ping = appliance.shell("ipoib:ping -c 2 -i 0.01 10.0.0.2");
        assertTrue(ping, ping.contains("2 received"));
        assertEquals("no component failed", -1, appliance.stderr().indexOf("Error during instantiation"));
        assertEquals("no activate failed", -1, appliance.stderr().indexOf("has thrown an exception"));
    }

    /** The property rows {@code ipoib:config} shows of a PID (value, allowed, default), nothing else. */
    private static String listing(String pid) {
        Pattern row = Pattern.compile("^\\S+\\s+(\\(default\\)|= ).*\\sallowed\\s.*\\sdefault\\s.*$");
        try {
            return appliance.shell("ipoib:config " + pid).lines().map(String::strip)
                    .filter(l -> row.matcher(l).matches()).reduce("", (a, b) -> a + b + "\n");
        } catch (java.io.IOException e) {
            throw new AssertionError("ipoib:config " + pid, e);
        }
    }

    /** The PID of the {@code index}th configuration of a factory PID, as {@code ipoib:config} lists them. */
    private static String factoryPid(String factoryPid, int index) throws Exception {
        String listing = appliance.shell("ipoib:config " + factoryPid);
        Matcher m = Pattern.compile("^\\s+(" + Pattern.quote(factoryPid) + "~\\S+)$", Pattern.MULTILINE).matcher(listing);
        List<String> pids = new ArrayList<>();
        while (m.find()) {
            pids.add(m.group(1));
        }
        pids.sort(null);
        assertTrue(listing, pids.size() > index);
        return pids.get(index);
    }
}
