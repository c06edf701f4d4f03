package ipoib.itest;

import static ipoib.itest.NetdevHosts.TIMEOUT;
import static ipoib.itest.NetdevHosts.appliance;
import static ipoib.itest.NetdevHosts.data;
import static ipoib.itest.NetdevHosts.sha256;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Real TCP over connected mode, on the hosts cm1 and cm2 of {@link NetdevHosts}: both interfaces
 * in connected mode, their Linux devices with the connected-mode MTU 65 520; the kernel's TCP,
 * ping and nc as the clients, and the console's metrics of the bridged devices.
 */
public class NetdevConnectedMode {
    @ClassRule
    public static final NetdevHosts HOSTS = NetdevHosts.shared();

    @Test
    public void theKernelSendsSixtyThousandOctetPacketsUnfragmentedOverTheConnection() throws Exception {
        String out = Sh.run(TIMEOUT, Sh.in("cm1", "ping", "-c", "3", "-i", "0.2", "-W5", "-M", "do", "-s", "60000",
                "10.8.0.2")).ok("ping -s 60000").output();
        assertTrue(out, out.contains("3 packets transmitted, 3 received, 0% packet loss"));
        assertTrue(out, out.contains("60008 bytes from 10.8.0.2"));
        String cm = appliance().command("ipoib:cm cma", TIMEOUT);
        assertTrue(cm, cm.contains("tx UP") && cm.contains("mtu 65520"));
    }

    @Test
    public void twentyMegabytesOfTcpArriveIntact() throws Exception {
        Path received = Files.createTempFile("cm-netdev", ".received");
        File log = File.createTempFile("cm-netdev-nc", ".log");
        try {
            Process server = Sh.start(log, Sh.in("cm2", "sh", "-c", "exec nc -l -p 5601 > " + received));
            Sh.awaitListening("cm2", 5601, TIMEOUT);
            Sh.run(TIMEOUT * 2, Sh.in("cm1", "sh", "-c", "nc -N 10.8.0.2 5601 < " + data())).ok("nc client");
            assertTrue("nc server ended", server.waitFor(TIMEOUT, TimeUnit.SECONDS));
            assertEquals(sha256(data()), sha256(received));
            String mss = Sh.run(10, Sh.in("cm1", "ip", "-o", "link", "show", "dev", "ib0")).ok("ip link").output();
            assertTrue(mss, mss.contains("mtu 65520"));
        } finally {
            Files.deleteIfExists(received);
            log.delete();
        }
        String cm = appliance().command("ipoib:cm", TIMEOUT);
        assertTrue(cm, cm.contains("cma: connected") && cm.contains("cmb: connected") && cm.contains("tx UP"));
    }

    @Test
    public void metricsHaveTheBridgedDevicesAndConnectedModeAndPassPromtool() throws Exception {
        Sh.run(TIMEOUT, Sh.in("cm1", "ping", "-c", "1", "-W5", "10.8.0.2")).ok("ping");
        String body = metrics();
        Promtool.check(body);
        for (String series : new String[] {"ipoib_netdev_", "{device=\"ib0\",interface=\"cma\"",
                "{device=\"ib0\",interface=\"cmb\"", "ipoib_cm_connections_established_total{interface=\"cma\"}",
                "ipoib_cm_agent_messages_total{device=\"loop0\",direction=\"sent\",message=\"req\",port=\"1\"}"}) {
            assertTrue("metrics have " + series + ":\n" + body, body.contains(series));
        }
    }

    /** {@code GET /metrics} of the console, at the address the appliance printed when it started. */
    private static String metrics() throws Exception {
        Matcher m = Pattern.compile("metrics at (http://\\S+/metrics)").matcher(appliance().output());
        assertTrue("the appliance printed its console address:\n" + appliance().output(), m.find());
        HttpResponse<String> r = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(m.group(1))).build(),
                HttpResponse.BodyHandlers.ofString());
        assertEquals(r.body(), 200, r.statusCode());
        return r.body();
    }
}
