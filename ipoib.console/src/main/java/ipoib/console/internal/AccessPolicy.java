package ipoib.console.internal;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Locale;

/**
 * Who may use the console: clients on the loopback address without credentials; any other
 * client only with the configured user name and password (HTTP Basic; put TLS or an SSH tunnel in
 * front); nobody from elsewhere while no credentials are configured. There is no default password.
 * State-changing requests from a browser must come from the console's own origin.
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

    private final String username;
    private final byte[] password;

    AccessPolicy(String username, String password) {
        boolean configured = username != null && !username.isBlank() && password != null && !password.isEmpty();
        this.username = configured ? username : null;
        this.password = configured ? password.getBytes(StandardCharsets.UTF_8) : null;
    }

    boolean hasCredentials() {
        return username != null;
    }

    /**
     * Decides on a request.
     *
     * @param remoteAddress the client's address as the connection shows it
     * @param authorization the Authorization header or null
     * @param method        the HTTP method
     * @param origin        the Origin header (or null); {@code referer} is used when it is absent
     * @param host          the Host header the client used
     */
    Decision decide(String remoteAddress, String authorization, String method, String origin, String referer,
                    String host, String secFetchSite) {
        String user;
        if (isLoopback(remoteAddress)) {
            user = "local";
        } else if (username == null) {
            return Decision.refuse(403, "console access from " + remoteAddress + " refused: only 127.0.0.1 and ::1 "
                    + "may use the console until a user name and password are configured (configuration ipoib.console)");
        } else if (!credentialsMatch(authorization)) {
            return Decision.refuse(401, "credentials required for console access from " + remoteAddress);
        } else {
            user = username;
        }
        if (!isSafe(method) && !sameOrigin(origin, referer, host, secFetchSite)) {
            return Decision.refuse(403, method + " refused: the request comes from another site (Origin "
                    + origin + ", Referer " + referer + ", Host " + host + ")");
        }
        return Decision.allow(user);
    }

    static boolean isSafe(String method) {
        return switch (method.toUpperCase(Locale.ROOT)) {
            case "GET", "HEAD", "OPTIONS", "TRACE" -> true;
            default -> false;
        };
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
                username.getBytes(StandardCharsets.UTF_8));
        boolean passwordOk = MessageDigest.isEqual(decoded.substring(colon + 1).getBytes(StandardCharsets.UTF_8),
                password);
        return userOk & passwordOk;
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
