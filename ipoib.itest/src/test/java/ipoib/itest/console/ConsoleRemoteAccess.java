package ipoib.itest.console;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import ipoib.itest.Await;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.net.NetworkInterface;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.Collections;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;

/**
 * A client that is not on the loopback address: refused while no credentials are configured,
 * then let in only with the configured user name and password, which from then on are needed on
 * the loopback address too and are stored only as a salted hash. The appliance listens on every
 * address for this test (a launch property; {@link ConsoleFixture#remote}, its own appliance, started
 * with the console's other fixtures), and the client connects to this machine's own non-loopback
 * address, so that the connection's remote address is not a loopback one.
 */
public class ConsoleRemoteAccess {

    private static RunningAppliance appliance;
    private static String local;
    private static String remote;
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    @BeforeClass
    public static void start() throws Exception {
        InetAddress own = ownAddress();
        appliance = ConsoleFixture.remote();
        String printed = appliance.baseUrl();
        assertTrue(printed, printed.endsWith(":" + appliance.port()));
        local = "http://127.0.0.1:" + appliance.port();
        remote = "http://" + own.getHostAddress() + ":" + appliance.port();
    }

    /** This machine's IPv4 address on a non-loopback interface that is up. */
    static InetAddress ownAddress() throws Exception {
        InetAddress own = null;
        for (NetworkInterface nic : Collections.list(NetworkInterface.getNetworkInterfaces())) {
            if (!nic.isUp() || nic.isLoopback()) {
                continue;
            }
            for (InetAddress a : Collections.list(nic.getInetAddresses())) {
                if (a instanceof Inet4Address && !a.isLoopbackAddress()) {
                    own = a;
                }
            }
        }
        if (own == null) {
            throw new AssertionError("this test needs an IPv4 address on a non-loopback interface that is up "
                    + "(none found); e.g. ip link add ipoibtest type dummy && ip addr add 192.0.2.10/32 dev ipoibtest "
                    + "&& ip link set ipoibtest up");
        }
        return own;
    }

    @AfterClass
    public static void stop() throws Exception {
        ConsoleFixture.closeRemote();
    }

    private static HttpResponse<String> get(String url, String user, String password) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(url));
        if (user != null) {
            b.header("Authorization", "Basic " + Base64.getEncoder().encodeToString((user + ":" + password)
                    .getBytes(StandardCharsets.UTF_8)));
        }
        return HTTP.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    @Test
    public void nonLocalClientsNeedConfiguredCredentials() throws Exception {
        HttpResponse<String> noCredentialsConfigured = get(remote + "/metrics", null, null);
        assertEquals(noCredentialsConfigured.body(), 403, noCredentialsConfigured.statusCode());
        assertTrue(noCredentialsConfigured.body(), noCredentialsConfigured.body().contains("ipoib.console"));
        // The Web Console's own default (admin/admin) is not accepted either.
        assertEquals(403, get(remote + "/system/console/bundles", "admin", "admin").statusCode());
        assertEquals(401, get(local + "/system/console/bundles", "admin", "admin").statusCode());
        assertEquals("local clients need credentials too", 401, get(local + "/metrics", null, null).statusCode());
        String[] generated = appliance.printedCredentials();
        assertEquals("the generated password serves local clients", 200,
                get(local + "/metrics", generated[0], generated[1]).statusCode());
        assertEquals("but no other client", 403, get(remote + "/metrics", generated[0], generated[1]).statusCode());

        String set = appliance.shell("ipoib:config ipoib.console username operator password s3cret-Pw");
        assertTrue(set, set.contains("password = ********"));
        int[] status = {0};
        Await.until("credentials required from a remote client", Duration.ofSeconds(60), Duration.ofMillis(50),
                () -> (status[0] = statusOf(remote + "/metrics")) == 401, () -> "; last status " + status[0]);
        HttpResponse<String> challenge = get(remote + "/metrics", null, null);
        assertTrue(challenge.headers().firstValue("WWW-Authenticate").orElse("").startsWith("Basic"));
        // A wrong password and admin/admin from a remote client are AccessPolicyTest's: here each would
        // cost a PBKDF2 derivation of 210 000 iterations (2 to 3 s on a loaded machine with C1 alone).
        assertEquals(200, get(remote + "/metrics", "operator", "s3cret-Pw").statusCode());
        assertEquals(200, get(remote + "/system/console/ipoib", "operator", "s3cret-Pw").statusCode());
        assertEquals("configured credentials are needed on loopback too", 401,
                get(local + "/system/console/ipoib", null, null).statusCode());
        // The generated password verified before the change is not remembered by the new policy.
        assertEquals(401, get(local + "/system/console/ipoib", generated[0], generated[1]).statusCode());
        assertEquals(200, get(local + "/system/console/ipoib", "operator", "s3cret-Pw").statusCode());

        // ConfigAdmin keeps only a salted hash, in a storage only the appliance's user can enter.
        String shown = appliance.shell("ipoib:config ipoib.console");
        assertTrue(shown, shown.contains("passwordHash") && shown.contains("pbkdf2-sha256$210000$"));
        Path storage = storage();
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(storage)));
        try (var files = Files.walk(storage)) {
            for (Path f : files.filter(Files::isRegularFile).toList()) {
                assertFalse("the password in clear in " + f, Files.readString(f, StandardCharsets.ISO_8859_1)
                        .contains("s3cret-Pw"));
            }
        }
    }

    /** The status of an unauthenticated GET (a condition polled while the configuration is taken). */
    private static int statusOf(String url) {
        try {
            return get(url, null, null).statusCode();
        } catch (Exception e) {
            throw new AssertionError("GET " + url, e);
        }
    }

    /** The framework storage of the appliance, as its system bundle names it. */
    private static Path storage() throws Exception {
        String out = appliance.shell("((bundle 0) getDataFile x) getAbsolutePath");
        Matcher m = Pattern.compile("(/\\S+)/bundle0/(?:data/)?x").matcher(out);
        assertTrue(out, m.find());
        return Path.of(m.group(1));
    }
}
