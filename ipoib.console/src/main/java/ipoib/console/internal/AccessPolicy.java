package ipoib.console.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Locale;
import java.util.Set;

/**
 * Who may use the console. Every request needs credentials (HTTP Basic): the operator's configured
 * user name and password, or, while none is configured, user {@value GeneratedPassword#USER} with
 * the generated password, which only loopback clients may use. Two launch properties, which no
 * console user can set, open doors on purpose: loopback clients without credentials, and
 * {@code GET /metrics} without credentials (for a Prometheus scraper). Requests must name the
 * console by a host name it knows (no DNS rebinding), and state-changing requests from a browser
 * must come from the console's own origin.
 */
final class AccessPolicy {

    /** The outcome of a check: allowed, or the HTTP status and the reason. */
    record Decision(boolean allowed, int status, String reason, String user) {
        static Decision allow(String user) {
            return new Decision(true, 200, "", user);
        }

        static Decision refuse(int status, String reason) {
            return new Decision(false, status, reason, null);
        }
    }

    /** A request as the policy sees it; {@code path} is {@link RequestPath#normalise normalised} (or null). */
    record Request(String remoteAddress, String authorization, String method, String path, String origin,
                   String referer, String host, String secFetchSite) {}

    /** The user and password hash clients must give; {@code configured}: set by the operator, not generated. */
    record Credentials(String username, PasswordHash hash, boolean configured) {}

    /** The doors the operator opened at launch. */
    record OpenDoors(boolean loopbackWithoutPassword, boolean metricsWithoutPassword) {
        static final String LOOPBACK_PROPERTY = "ipoib.console.loopbackWithoutPassword";
        static final String METRICS_PROPERTY = "ipoib.console.metricsWithoutPassword";
        static final OpenDoors NONE = new OpenDoors(false, false);
    }

    static final String METRICS_PATH = "/metrics";

    private final Credentials credentials;
    private final OpenDoors doors;
    private final Set<String> hostNames;
    /** SHA-256 of the last Authorization header that matched: PBKDF2 runs once, not per request. */
    private volatile byte[] verified;
    /**
     * The SHA-256 of Authorization headers found wrong, at most {@value #REFUSED_KEPT}: a browser (or
     * script) that repeats a stale password on every request costs one PBKDF2 derivation, not one
     * per request; each new guess still costs one. A new configuration makes a new policy.
     */
    private final Set<java.nio.ByteBuffer> refused = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private static final int REFUSED_KEPT = 64;
    private final java.util.concurrent.atomic.AtomicLong derivations = new java.util.concurrent.atomic.AtomicLong();

    AccessPolicy(Credentials credentials, OpenDoors doors, Set<String> hostNames) {
        this.credentials = credentials;
        this.doors = doors;
        this.hostNames = Set.copyOf(hostNames.stream().map(h -> h.strip().toLowerCase(Locale.ROOT)).toList());
    }

    boolean hasConfiguredCredentials() {
        return credentials != null && credentials.configured();
    }

    Decision decide(Request r) {
        if (!hostAllowed(r.host())) {
            return Decision.refuse(403, "Host '" + r.host() + "' refused: the console answers to localhost, IP "
                    + "addresses and the names in ipoib.console's hostNames");
        }
        String user;
        if (doors.metricsWithoutPassword() && METRICS_PATH.equals(r.path()) && isRead(r.method())) {
            user = "metrics";
        } else if (doors.loopbackWithoutPassword() && isLoopback(r.remoteAddress())) {
            user = "local";
        } else if (!isLoopback(r.remoteAddress()) && !hasConfiguredCredentials()) {
            return Decision.refuse(403, "console access from " + r.remoteAddress() + " refused: only 127.0.0.1 and ::1 "
                    + "may use the console until a user name and password are configured (configuration ipoib.console)");
        } else if (credentials == null || !credentialsMatch(r.authorization())) {
            return Decision.refuse(401, "credentials required for console access from " + r.remoteAddress()
                    + (hasConfiguredCredentials() ? "" : ": user " + GeneratedPassword.USER
                    + " and the password the appliance printed at start"));
        } else {
            user = credentials.username();
        }
        if (!isSafe(r.method()) && !sameOrigin(r.origin(), r.referer(), r.host(), r.secFetchSite())) {
            return Decision.refuse(403, r.method() + " refused: the request comes from another site (Origin "
                    + r.origin() + ", Referer " + r.referer() + ", Host " + r.host() + ")");
        }
        return Decision.allow(user);
    }

    /**
     * DNS rebinding gives a page of another site this console's address under the site's own
     * name; the Host header still carries that name. IP literals and localhost cannot be rebound.
     */
    boolean hostAllowed(String host) {
        if (host == null) {
            return true; // HTTP/1.0 without Host: not a browser, which always sends one
        }
        String name = host.strip().toLowerCase(Locale.ROOT);
        if (name.startsWith("[")) {
            int close = name.indexOf(']');
            return close > 0 && isLiteral(name.substring(1, close)) && (close == name.length() - 1
                    || name.substring(close + 1).matches(":[0-9]{1,5}"));
        }
        int colon = name.indexOf(':');
        if (colon >= 0) {
            if (!name.substring(colon + 1).matches("[0-9]{1,5}")) {
                return false;
            }
            name = name.substring(0, colon);
        }
        if (name.endsWith(".")) {
            name = name.substring(0, name.length() - 1);
        }
        return name.equals("localhost") || isLiteral(name) || hostNames.contains(name);
    }

    private static boolean isLiteral(String name) {
        if (name.isEmpty() || !(Character.digit(name.charAt(0), 16) >= 0 || name.charAt(0) == ':')) {
            return false;
        }
        try {
            InetAddress.ofLiteral(name);
            return true;
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean isSafe(String method) {
        return switch (method.toUpperCase(Locale.ROOT)) {
            case "GET", "HEAD", "OPTIONS", "TRACE" -> true;
            default -> false;
        };
    }

    private static boolean isRead(String method) {
        return method.equalsIgnoreCase("GET") || method.equalsIgnoreCase("HEAD");
    }

    /**
     * A browser names the page a POST comes from (Origin, else Referer, and Sec-Fetch-Site); a
     * request without any of them is not from a browser page and is left to the token check.
     */
    static boolean sameOrigin(String origin, String referer, String host, String secFetchSite) {
        if ("cross-site".equalsIgnoreCase(secFetchSite)) {
            return false;
        }
        String source = origin != null && !origin.equals("null") ? origin : referer;
        if (source == null) {
            return origin == null;
        }
        if (host == null) {
            return false;
        }
        String authority = authority(source);
        return authority != null && authority.equalsIgnoreCase(host);
    }

    private static String authority(String url) {
        int scheme = url.indexOf("://");
        if (scheme < 0) {
            return null;
        }
        int start = scheme + 3;
        int end = start;
        while (end < url.length() && "/?#".indexOf(url.charAt(end)) < 0) {
            end++;
        }
        return url.substring(start, end);
    }

    private boolean credentialsMatch(String authorization) {
        if (authorization == null || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return false;
        }
        byte[] digest = sha256(authorization);
        byte[] known = verified;
        if (known != null && MessageDigest.isEqual(known, digest)) {
            return true;
        }
        if (refused.contains(java.nio.ByteBuffer.wrap(digest))) {
            return false;
        }
        String decoded;
        try {
            decoded = new String(Base64.getDecoder().decode(authorization.substring(6).strip()), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException e) {
            return false;
        }
        int colon = decoded.indexOf(':');
        if (colon < 0) {
            return false;
        }
        boolean userOk = MessageDigest.isEqual(decoded.substring(0, colon).getBytes(StandardCharsets.UTF_8),
                credentials.username().getBytes(StandardCharsets.UTF_8));
        derivations.incrementAndGet();
        boolean passwordOk = credentials.hash().matches(decoded.substring(colon + 1));
        if (userOk & passwordOk) {
            verified = digest;
            return true;
        }
        if (refused.size() >= REFUSED_KEPT) {
            refused.clear();
        }
        refused.add(java.nio.ByteBuffer.wrap(digest));
        return false;
    }

    /** How many PBKDF2 derivations checking passwords took so far. */
    long derivations() {
        return derivations.get();
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }

    static boolean isLoopback(String address) {
        if (address == null || address.isEmpty()) {
            return false;
        }
        // Only literal addresses: the servlet container gives the connection's address.
        if (!(Character.digit(address.charAt(0), 16) >= 0 || address.charAt(0) == ':' || address.charAt(0) == '[')) {
            return false;
        }
        try {
            String literal = address.startsWith("[") ? address.substring(1, address.length() - 1) : address;
            return InetAddress.ofLiteral(literal).isLoopbackAddress();
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    static boolean isLoopbackHost(String host) {
        try {
            return InetAddress.getByName(host).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }
}
