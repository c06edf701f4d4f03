package ipoib.console.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import org.junit.jupiter.api.Test;

class AccessPolicyTest {
    private static String basic(String user, String password) {
        return "Basic " + Base64.getEncoder().encodeToString((user + ":" + password).getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void loopbackClientsNeedNoCredentials() {
        AccessPolicy none = new AccessPolicy("", "");
        assertTrue(none.decide("127.0.0.1", null, "GET", null, null, "127.0.0.1:8080", null).allowed());
        assertTrue(none.decide("0:0:0:0:0:0:0:1", null, "GET", null, null, "[::1]:8080", null).allowed());
    }

    @Test
    void otherClientsAreRefusedUntilCredentialsAreConfigured() {
        AccessPolicy none = new AccessPolicy("", "");
        AccessPolicy.Decision d = none.decide("192.0.2.7", basic("admin", "admin"), "GET", null, null, "h:1", null);
        assertFalse(d.allowed());
        assertEquals(403, d.status());
        AccessPolicy policy = new AccessPolicy("op", "pw");
        assertEquals(401, policy.decide("192.0.2.7", null, "GET", null, null, "h:1", null).status());
        assertEquals(401, policy.decide("192.0.2.7", basic("op", "wrong"), "GET", null, null, "h:1", null).status());
        assertEquals(401, policy.decide("192.0.2.7", "Basic !!!", "GET", null, null, "h:1", null).status());
        assertTrue(policy.decide("192.0.2.7", basic("op", "pw"), "GET", null, null, "h:1", null).allowed());
        assertEquals("op", policy.decide("192.0.2.7", basic("op", "pw"), "GET", null, null, "h:1", null).user());
    }

    @Test
    void aNameThatIsNotAnAddressLiteralIsNotLoopback() {
        assertFalse(AccessPolicy.isLoopback("localhost"));
        assertFalse(AccessPolicy.isLoopback(""));
        assertTrue(AccessPolicy.isLoopback("127.0.0.2"));
    }

    @Test
    void browserPostsFromAnotherSiteAreRefused() {
        AccessPolicy local = new AccessPolicy("", "");
        assertEquals(403, local.decide("127.0.0.1", null, "POST", "http://evil.example", null, "127.0.0.1:8080", null).status());
        assertEquals(403, local.decide("127.0.0.1", null, "POST", null, "http://evil.example/x", "127.0.0.1:8080", null).status());
        assertEquals(403, local.decide("127.0.0.1", null, "POST", null, null, "127.0.0.1:8080", "cross-site").status());
        assertTrue(local.decide("127.0.0.1", null, "POST", "http://127.0.0.1:8080", null, "127.0.0.1:8080", "same-origin").allowed());
        assertTrue(local.decide("127.0.0.1", null, "POST", null, "http://127.0.0.1:8080/system/console/x", "127.0.0.1:8080", null).allowed());
        assertTrue(local.decide("127.0.0.1", null, "GET", "http://evil.example", null, "127.0.0.1:8080", null).allowed(),
                "GET is not state-changing");
    }
}
