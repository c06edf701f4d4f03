package ipoib.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;

/**
 * The anti-forgery token of the console's state-changing forms: one random value per run of the
 * bundle, embedded in the pages the console serves and required on every POST of its plugins (as
 * the form field or the header {@value #HEADER}). A page of another site cannot read it, so it
 * cannot forge the request (the synchronizer token pattern).
 */
final class AntiForgery {
    static final String FIELD = "ipoib_token";
    static final String HEADER = "X-Ipoib-Token";

    private static final String TOKEN;

    static {
        byte[] random = new byte[24];
        new SecureRandom().nextBytes(random);
        TOKEN = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
    }

    private AntiForgery() {}

    static String token() {
        return TOKEN;
    }

    /** The hidden form field that carries the token. */
    static String field() {
        return "<input type='hidden' name='" + FIELD + "' value='" + TOKEN + "'>";
    }

    /** Whether a request carries the token (compared in constant time). */
    static boolean valid(HttpServletRequest request) {
        String given = request.getHeader(HEADER);
        if (given == null) {
            given = request.getParameter(FIELD);
        }
        return given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                TOKEN.getBytes(StandardCharsets.UTF_8));
    }
}
