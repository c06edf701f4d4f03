package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class AccessPolicyTest {
    private static final PasswordHash GENERATED = PasswordHash.of("generated-pw-1234");
    private static final PasswordHash OPERATOR = PasswordHash.of("pw-of-the-operator");

    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    private static AccessPolicy generated(AccessPolicy.OpenDoors doors) {
        return new AccessPolicy(new AccessPolicy.Credentials("ipoib", GENERATED, false), doors, Set.of());
    }

    private static AccessPolicy configured() {
        return new AccessPolicy(new AccessPolicy.Credentials("op", OPERATOR, true), AccessPolicy.OpenDoors.NONE,
                Set.of("console.example"));
    }

    private static AccessPolicy.Request get(String remote, String authorization, String host) {
        return new AccessPolicy.Request(remote, authorization, "GET", "/system/console/ipoib", null, null, host, null);
    }

    private static AccessPolicy.Request request(String remote, String authorization, String method, String path,
                                                String origin, String referer, String host, String site) {
        return new AccessPolicy.Request(remote, authorization, method, path, origin, referer, host, site);
    }

    @Test
    void loopbackClientsNeedTheGeneratedPasswordUnlessTheOperatorOpenedThatDoorAtLaunch() {
        AccessPolicy policy = generated(AccessPolicy.OpenDoors.NONE);
        AccessPolicy.Decision none = policy.decide(get("127.0.0.1", null, "127.0.0.1:8080"));
        assertEquals(401, none.status());
        assertTrue(none.reason().contains("user ipoib and the password the appliance printed at start"), none.reason());
        assertEquals(401, policy.decide(get("::1", basic("ipoib", "guess"), "[::1]:8080")).status());
        assertEquals("ipoib", policy.decide(get("127.0.0.1", basic("ipoib", "generated-pw-1234"), "127.0.0.1:8080")).user());
        AccessPolicy open = generated(new AccessPolicy.OpenDoors(true, false));
        assertEquals("local", open.decide(get("0:0:0:0:0:0:0:1", null, "[::1]:8080")).user());
    }

    /** A stale password repeated on every request of a page costs one PBKDF2 derivation; a new guess one more. */
    @Test
    void aWrongPasswordRepeatedIsHashedOnce() {
        AccessPolicy policy = generated(AccessPolicy.OpenDoors.NONE);
        for (int i = 0; i < 5; i++) {
            assertEquals(401, policy.decide(get("127.0.0.1", basic("ipoib", "stale"), "127.0.0.1:8080")).status());
        }
        assertEquals(1, policy.derivations());
        assertEquals(401, policy.decide(get("127.0.0.1", basic("ipoib", "another guess"), "127.0.0.1:8080")).status());
        assertEquals(2, policy.derivations());
        assertEquals("ipoib", policy.decide(get("127.0.0.1", basic("ipoib", "generated-pw-1234"), "127.0.0.1:8080")).user());
        assertEquals("ipoib", policy.decide(get("127.0.0.1", basic("ipoib", "generated-pw-1234"), "127.0.0.1:8080")).user());
        assertEquals(3, policy.derivations(), "the right password is hashed once too");
        assertEquals(401, policy.decide(get("127.0.0.1", basic("ipoib", "stale"), "127.0.0.1:8080")).status());
        assertEquals(3, policy.derivations());
    }

    @Test
    void configuredCredentialsAreNeededEvenOnLoopback() {
        AccessPolicy policy = configured();
        assertEquals(401, policy.decide(get("127.0.0.1", null, "127.0.0.1:8080")).status());
        assertEquals(401, policy.decide(get("127.0.0.1", basic("ipoib", "generated-pw-1234"), "127.0.0.1:8080")).status(),
                "the generated password no longer counts");
        assertEquals("op", policy.decide(get("127.0.0.1", basic("op", "pw-of-the-operator"), "127.0.0.1:8080")).user());
    }

    @Test
    void otherClientsAreRefusedUntilCredentialsAreConfigured() {
        AccessPolicy none = generated(new AccessPolicy.OpenDoors(true, false));
        AccessPolicy.Decision d = none.decide(get("192.0.2.7", basic("ipoib", "generated-pw-1234"), "192.0.2.1:8080"));
        assertFalse(d.allowed());
        assertEquals(403, d.status());
        AccessPolicy policy = configured();
        assertEquals(401, policy.decide(get("192.0.2.7", null, "192.0.2.1:8080")).status());
        assertEquals(401, policy.decide(get("192.0.2.7", basic("op", "wrong"), "192.0.2.1:8080")).status());
        assertEquals(401, policy.decide(get("192.0.2.7", basic("admin", "admin"), "192.0.2.1:8080")).status(),
                "the Web Console's own default is no user here");
        assertEquals(401, policy.decide(get("192.0.2.7", "Basic !!!", "192.0.2.1:8080")).status());
        assertEquals("op", policy.decide(get("192.0.2.7", basic("op", "pw-of-the-operator"), "192.0.2.1:8080")).user());
        // Verified once, then remembered: the same header again is let in.
        assertEquals("op", policy.decide(get("192.0.2.7", basic("op", "pw-of-the-operator"), "192.0.2.1:8080")).user());
    }

    @Test
    void metricsMayBeOpenedAtLaunchForReadsOfExactlyThatPath() {
        AccessPolicy policy = generated(new AccessPolicy.OpenDoors(false, true));
        assertEquals("metrics", policy.decide(request("127.0.0.1", null, "GET", "/metrics", null, null, "127.0.0.1:1", null)).user());
        assertEquals(401, policy.decide(request("127.0.0.1", null, "GET", "/system/console/bundles", null, null, "127.0.0.1:1", null)).status());
        assertEquals(401, policy.decide(request("127.0.0.1", null, "POST", "/metrics", null, null, "127.0.0.1:1", null)).status());
        assertEquals(401, policy.decide(request("127.0.0.1", null, "GET", null, null, null, "127.0.0.1:1", null)).status(),
                "an ambiguous path opens nothing");
        assertEquals(401, generated(AccessPolicy.OpenDoors.NONE).decide(
                request("127.0.0.1", null, "GET", "/metrics", null, null, "127.0.0.1:1", null)).status());
    }

    @Test
    void theHostHeaderMustBeAnAddressLocalhostOrAConfiguredName() {
        AccessPolicy policy = configured();
        String auth = basic("op", "pw-of-the-operator");
        for (String host : new String[] {"127.0.0.1:8080", "localhost:8080", "LOCALHOST", "[::1]:8080", "192.0.2.1",
                "console.example:8080", "localhost.", null}) {
            assertTrue(policy.decide(get("127.0.0.1", auth, host)).allowed(), String.valueOf(host));
        }
        for (String host : new String[] {"evil.example:8080", "evil.example", "localhost.evil.example", "127.0.0.1.nip.io",
                "[::1]x", "localhost:80:80", "cafe.example"}) {
            AccessPolicy.Decision d = policy.decide(get("127.0.0.1", auth, host));
            assertEquals(403, d.status(), host);
            assertTrue(d.reason().startsWith("Host '" + host + "' refused"), d.reason());
        }
    }

    @Test
    void aNameThatIsNotAnAddressLiteralIsNotLoopback() {
        assertFalse(AccessPolicy.isLoopback("localhost"));
        assertFalse(AccessPolicy.isLoopback(""));
        assertTrue(AccessPolicy.isLoopback("127.0.0.2"));
    }

    @Test
    void browserPostsFromAnotherSiteAreRefused() {
        AccessPolicy local = generated(new AccessPolicy.OpenDoors(true, false));
        String p = "/system/console/ipoib";
        assertEquals(403, local.decide(request("127.0.0.1", null, "POST", p, "http://evil.example", null, "127.0.0.1:8080", null)).status());
        assertEquals(403, local.decide(request("127.0.0.1", null, "POST", p, null, "http://evil.example/x", "127.0.0.1:8080", null)).status());
        assertEquals(403, local.decide(request("127.0.0.1", null, "POST", p, null, null, "127.0.0.1:8080", "cross-site")).status());
        assertTrue(local.decide(request("127.0.0.1", null, "POST", p, "http://127.0.0.1:8080", null, "127.0.0.1:8080", "same-origin")).allowed());
        assertTrue(local.decide(request("127.0.0.1", null, "POST", p, null, "http://127.0.0.1:8080/system/console/x", "127.0.0.1:8080", null)).allowed());
        assertTrue(local.decide(request("127.0.0.1", null, "GET", p, "http://evil.example", null, "127.0.0.1:8080", null)).allowed(),
                "GET is not state-changing");
    }

    @Test
    void pathsAreDecodedAndNormalisedBeforeAnyRuleSeesThem() {
        assertEquals("/metrics", RequestPath.normalise("/%6detrics"));
        assertEquals("/system/console/ipoib-fabric", RequestPath.normalise("/system/console/%69poib-fabric"));
        assertEquals("/metrics", RequestPath.normalise("/system/../metrics"));
        assertEquals("/metrics", RequestPath.normalise("/./metrics"));
        assertEquals("/system/console/bundles", RequestPath.normalise("/metrics/../system/console/bundles"));
        assertNull(RequestPath.normalise("/metrics;x=1"));
        assertNull(RequestPath.normalise("/system%2fconsole"));
        assertNull(RequestPath.normalise("/metrics%00"));
        assertNull(RequestPath.normalise("/metrics%"));
    }

    @Test
    void theGeneratedPasswordIsCheckedWithoutStretching() {
        PasswordHash h = PasswordHash.ofRandom("Zq3xV0b9hK2mP7rT4wY1cA8e");
        assertEquals(1, h.iterations(), "a random password needs no stretching: " + h);
        assertTrue(h.matches("Zq3xV0b9hK2mP7rT4wY1cA8e"));
        assertFalse(h.matches("Zq3xV0b9hK2mP7rT4wY1cA8E"));
        assertFalse(h.matches(""));
    }

    @Test
    void aPasswordIsStoredAsASaltedPbkdf2Hash() {
        PasswordHash h = PasswordHash.of("s3cret-Pw");
        assertTrue(h.text().startsWith("pbkdf2-sha256$210000$"), h.text());
        assertFalse(h.text().contains("s3cret-Pw"));
        assertTrue(PasswordHash.parse(h.text()).matches("s3cret-Pw"));
        assertFalse(PasswordHash.parse(h.text()).matches("s3cret-pw"));
        assertFalse(PasswordHash.parse(h.text()).matches(""));
        assertFalse(h.text().equals(PasswordHash.of("s3cret-Pw").text()), "salted: the same password hashes differently");
        assertThrows(IllegalArgumentException.class, () -> PasswordHash.parse("s3cret-Pw"));

        Map<String, Object> properties = new HashMap<>(Map.of("username", "op", "password", "s3cret-Pw"));
        assertTrue(ConsoleAccess.hashPassword(properties));
        assertEquals(Set.of("username", "passwordHash"), properties.keySet());
        assertTrue(PasswordHash.parse((String) properties.get("passwordHash")).matches("s3cret-Pw"));
        assertFalse(ConsoleAccess.hashPassword(new HashMap<>(Map.of("username", "op"))));
        assertTrue(ConsoleAccess.refusal(Map.of("passwordHash", "plain")).startsWith(
                "invalid ipoib.console property 'passwordHash': allowed a password hash is pbkdf2-sha256$"));
    }
}
