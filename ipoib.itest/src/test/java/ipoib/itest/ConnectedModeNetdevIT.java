package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * Real TCP over connected mode: the appliance with two interfaces in connected mode, each a Linux
 * device in its own namespace ({@code cm1}, {@code cm2}: names no other test uses) with the
 * connected-mode MTU 65 520; the kernel's TCP, ping and nc as the clients. Needs what
 * {@link NetdevIT} needs (root, /dev/net/tun, iproute2, iputils-ping, netcat-openbsd).
 */
public class ConnectedModeNetdevIT {
    private static final long TIMEOUT = 60;
    private static ApplianceProcess appliance;
    private static Path data;

    @BeforeClass
    public static void startHosts() throws Exception {
        NetdevIT.requireTools();
        for (String ns : new String[] {"cm1", "cm2"}) {
            assertFalse("network namespace " + ns + " exists already (a previous run left it? ip netns del " + ns + ")",
                    Files.exists(Path.of("/run/netns", ns)));
        }
        appliance = new ApplianceProcess("ipoib.defaults=false", "org.osgi.service.http.port=0",
                "ipoib.console.metricsWithoutPassword=true");
        appliance.command("ipoib:create loop0 1 0xffff cma", TIMEOUT);
        appliance.command("ipoib:create loop1 1 0xffff cmb", TIMEOUT);
        appliance.command("ipoib:await all 30", TIMEOUT);
        appliance.command("ipoib:mode cma connected", TIMEOUT);
        appliance.command("ipoib:mode cmb connected", TIMEOUT);
        appliance.awaitCommand("ipoib:mode cmb", "cmb: connected, mtu 65520", TIMEOUT);
        appliance.awaitCommand("ipoib:mode cma", "cma: connected, mtu 65520", TIMEOUT);
        appliance.command("ipoib:netdev add cma netns cm1 dev ib0 10.8.0.1/24", TIMEOUT);
        appliance.command("ipoib:netdev add cmb netns cm2 dev ib0 10.8.0.2/24", TIMEOUT);
        String list = appliance.awaitCommand("ipoib:netdev await 60", "cmb: device ib0  netns cm2", TIMEOUT);
        assertTrue(list, list.contains("cma: device ib0  netns cm1  mtu 65520  link UP"));
        assertTrue(list, list.contains("cmb: device ib0  netns cm2  mtu 65520  link UP"));
        data = Files.createTempFile("cm-netdev", ".bin");
        byte[] bytes = new byte[20 * 1024 * 1024];
        new Random(15).nextBytes(bytes);
        Files.write(data, bytes);
    }

    @AfterClass
    public static void stop() throws Exception {
        if (appliance != null) {
            assertEquals(0, appliance.exit(TIMEOUT));
            assertFalse("cm1 removed at exit", Files.exists(Path.of("/run/netns", "cm1")));
            assertFalse("cm2 removed at exit", Files.exists(Path.of("/run/netns", "cm2")));
        }
        if (data != null) {
            Files.deleteIfExists(data);
        }
    }

    @Test
    public void theKernelSendsSixtyThousandOctetPacketsUnfragmentedOverTheConnection() throws Exception {
        String out = Sh.run(TIMEOUT, Sh.in("cm1", "ping", "-c", "3", "-W5", "-M", "do", "-s", "60000", "10.8.0.2"))
                .ok("ping -s 60000").output();
        assertTrue(out, out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("60008 bytes from 10.8.0.2"));
        String cm = appliance.command("ipoib:cm cma", TIMEOUT);
        assertTrue(cm, cm.contains("tx UP") && cm.contains("mtu 65520"));
    }

    @Test
    public void twentyMegabytesOfTcpArriveIntact() throws Exception {
        Path received = Files.createTempFile("cm-netdev", ".received");
        File log = File.createTempFile("cm-netdev-nc", ".log");
        try {
            Process server = Sh.start(log, Sh.in("cm2", "sh", "-c", "exec nc -l -p 5601 > " + received));
            Sh.awaitListening("cm2", 5601, TIMEOUT);
            Sh.run(TIMEOUT * 2, Sh.in("cm1", "sh", "-c", "nc -N 10.8.0.2 5601 < " + data)).ok("nc client");
            assertTrue("nc server ended", server.waitFor(TIMEOUT, TimeUnit.SECONDS));
            assertEquals(sha256(data), sha256(received));
            String mss = Sh.run(10, Sh.in("cm1", "ip", "-o", "link", "show", "dev", "ib0")).ok("ip link").output();
            assertTrue(mss, mss.contains("mtu 65520"));
        } finally {
            Files.deleteIfExists(received);
            log.delete();
        }
        String cm = appliance.command("ipoib:cm", TIMEOUT);
        assertTrue(cm, cm.contains("cma: connected") && cm.contains("cmb: connected") && cm.contains("tx UP"));
    }

    @Test
    public void metricsHaveTheBridgedDevicesAndConnectedModeAndPassPromtool() throws Exception {
        Sh.run(TIMEOUT, Sh.in("cm1", "ping", "-c", "1", "-W5", "10.8.0.2")).ok("ping");
        String body = metrics();
        Promtool.check(body);
        for (String series : new String[] {"ipoib_netdev_", "{interface=\"cma\",device=\"ib0\"",
                "{interface=\"cmb\",device=\"ib0\"", "ipoib_cm_connections_established_total{interface=\"cma\"}",
                "ipoib_cm_agent_sent_req_total{device=\"loop0\",port=\"1\"}"}) {
            assertTrue("metrics have " + series + ":\n" + body, body.contains(series));
        }
    }

    /** {@code GET /metrics} of the console, at the address the appliance printed when it started. */
    private static String metrics() throws Exception {
        Matcher m = Pattern.compile("metrics at (http://\\S+/metrics)").matcher(appliance.output());
        assertTrue("the appliance printed its console address:\n" + appliance.output(), m.find());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(r.body(), 200, r.statusCode());
        return r.body();
    }

    private static String sha256(Path file) throws Exception {
        return Sh.run(TIMEOUT, "sha256sum", file.toString()).ok("sha256sum").output().split("\\s+")[0];
    }
}
