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

    /** Iterations for a password the appliance drew at random: see {@link #ofRandom}. */
    static final int RANDOM_PASSWORD_ITERATIONS = 1;

    static PasswordHash of(String password) {
        return of(password, ITERATIONS);
    }

    /**
     * The hash held in memory to check a password the appliance drew at random (the generated
     * console password, 144 random bits, kept in clear in its owner-only file). Stretching guards
     * a password a person chose against guessing; against 2^144 it adds nothing, and 210 000
     * iterations cost about a second of a start's CPU on a short-lived JVM. Never stored.
     */
    static PasswordHash ofRandom(String password) {
        return of(password, RANDOM_PASSWORD_ITERATIONS);
    }

    private static PasswordHash of(String password, int iterations) {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return new PasswordHash(iterations, salt, derive(password, salt, iterations));
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
