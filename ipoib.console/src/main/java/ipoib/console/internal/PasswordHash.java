package ipoib.console.internal;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * A password kept only as a salted PBKDF2-HMAC-SHA256 hash, in the text form
 * {@code pbkdf2-sha256$<iterations>$<salt>$<hash>} (Base64). 210 000 iterations: OWASP's
 * password storage cheat sheet figure for PBKDF2-HMAC-SHA256 at the time of writing.
 */
record PasswordHash(int iterations, byte[] salt, byte[] hash) {
    static final String SCHEME = "pbkdf2-sha256";
    static final int ITERATIONS = 210_000;
    private static final SecureRandom RANDOM = new SecureRandom();

    static PasswordHash of(String password) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return new PasswordHash(ITERATIONS, salt, derive(password, salt, ITERATIONS));
    }

    /**
     * Reads the text form.
     *
     * @throws IllegalArgumentException naming what is wrong
     */
    static PasswordHash parse(String text) {
        String[] parts = text == null ? new String[0] : text.strip().split("\\$");
        try {
            if (parts.length == 4 && parts[0].equals(SCHEME)) {
                int iterations = Integer.parseInt(parts[1]);
                byte[] salt = Base64.getDecoder().decode(parts[2]);
                byte[] hash = Base64.getDecoder().decode(parts[3]);
                if (iterations >= 10_000 && salt.length >= 16 && hash.length == 32) {
                    return new PasswordHash(iterations, salt, hash);
                }
            }
        } catch (IllegalArgumentException e) {
            // Named below.
        }
        throw new IllegalArgumentException("a password hash is " + SCHEME
                + "$<iterations, at least 10000>$<Base64 salt, 16 octets or more>$<Base64 SHA-256 hash>");
    }

    boolean matches(String password) {
        // PBKDF2 has no key for an empty password; nothing hashes to it either.
        return !password.isEmpty() && MessageDigest.isEqual(hash, derive(password, salt, iterations));
    }

    String text() {
        Base64.Encoder b = Base64.getEncoder();
        return SCHEME + "$" + iterations + "$" + b.encodeToString(salt) + "$" + b.encodeToString(hash);
    }

    private static byte[] derive(String password, byte[] salt, int iterations) {
        PBEKeySpec spec = new PBEKeySpec(password.toCharArray(), salt, iterations, 256);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 is part of every Java runtime", e);
        } finally {
            spec.clearPassword();
        }
    }

    @Override
    public String toString() {
        return SCHEME + " (" + iterations + " iterations)";
    }
}
