package ipoib.console.internal;

import jakarta.servlet.http.HttpServletRequest;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Locale;

/**
 * The anti-forgery token of every state-changing request to the console: one random value per run
 * of the bundle, embedded in the pages the console serves (the project's forms carry it; the
 * Web Console's own pages get it from {@link TokenPageResponse}'s script), and required on every
 * POST, PUT, DELETE... as the header {@value #HEADER}, the query parameter or the form field
 * {@value #FIELD}. A page of another site cannot read it, so it cannot forge the request (the
 * synchronizer token pattern).
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
            given = fromQuery(request.getQueryString());
        }
        String type = request.getContentType();
        // Only a URL-encoded body is read for the field: reading a multipart body here would take
        // it from the servlet that needs it (the Web Console's bundle upload).
        if (given == null && type != null
                && type.toLowerCase(Locale.ROOT).startsWith("application/x-www-form-urlencoded")) {
            given = request.getParameter(FIELD);
        }
        return given != null && MessageDigest.isEqual(given.getBytes(StandardCharsets.UTF_8),
                TOKEN.getBytes(StandardCharsets.UTF_8));
    }

    private static String fromQuery(String query) {
        if (query == null) {
            return null;
        }
        for (String pair : query.split("&")) {
            int eq = pair.indexOf('=');
            if (eq > 0 && pair.substring(0, eq).equals(FIELD)) {
                try {
                    return URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
                } catch (IllegalArgumentException e) {
                    return null;
                }
            }
        }
        return null;
    }
}
