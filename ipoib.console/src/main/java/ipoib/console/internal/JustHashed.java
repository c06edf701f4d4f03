package ipoib.console.internal;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * The login of the password this bundle hashed last ({@code ipoib:config} or the Web Console's
 * form set it in clear): the digest of the Authorization header that carries it, which
 * {@link AccessPolicy} keeps after a login anyway, so that the first login with a password just
 * set costs no PBKDF2 derivation (seconds with the appliance's compiler on a loaded machine). Only
 * the last one is kept, and only for the hash it was made with.
 */
final class JustHashed {
    private record Entry(String hashText, String username, byte[] headerDigest) {}

    private static volatile Entry last;

    private JustHashed() {}

    /** Remembers the login of {@code username} with {@code password}, whose hash is {@code hashText}. */
    static void remember(String hashText, String username, String password) {
        String header = "Basic " + Base64.getEncoder().encodeToString((username + ":" + password)
                .getBytes(StandardCharsets.UTF_8));
        last = new Entry(hashText, username, AccessPolicy.sha256(header));
    }

    /** The header digest of {@code username}'s login if its password was the last hashed, as {@code hashText}; else null. */
    static byte[] headerDigest(String hashText, String username) {
        Entry e = last;
        return e != null && e.hashText().equals(hashText) && e.username().equals(username) ? e.headerDigest().clone() : null;
    }
}
