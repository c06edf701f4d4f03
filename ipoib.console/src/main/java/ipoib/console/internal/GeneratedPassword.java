package ipoib.console.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * The console's password while the operator has configured none: random, made at the first start
 * and kept in a file only the user who started the appliance can read (mode 0600 in a 0700
 * directory; launch property {@value #FILE_PROPERTY}, default {@code ~/.ipoib/console-password}),
 * as Jupyter keeps its token. Every later start uses the same file, so the operator reads it once.
 */
final class GeneratedPassword {
    static final String FILE_PROPERTY = "ipoib.console.passwordFile";
    static final String USER = "ipoib";

    private static final Set<PosixFilePermission> OWNER_READ_WRITE = PosixFilePermissions.fromString("rw-------");

    private final Path file;
    private final String password;

    private GeneratedPassword(Path file, String password) {
        this.file = file;
        this.password = password;
    }

    static Path file(UnaryOperator<String> properties) {
        String configured = properties.apply(FILE_PROPERTY);
        return configured != null && !configured.isBlank() ? Path.of(configured.strip()).toAbsolutePath()
                : Path.of(System.getProperty("user.home"), ".ipoib", "console-password");
    }

    /**
     * Reads the file, or makes it with a new random password.
     *
     * @throws IOException when the file cannot be made or read, or others may read or change it
     */
    static GeneratedPassword load(Path file) throws IOException {
        if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
            Path dir = file.getParent();
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            }
            byte[] random = new byte[18];
            new SecureRandom().nextBytes(random);
            String password = Base64.getUrlEncoder().withoutPadding().encodeToString(random);
            // Written whole, owner-only from its creation, under a name of its own, then linked to
            // the file's name: link(2) never replaces, so whoever sees the name sees the finished file
            // with its permissions, and the first appliance of the user to start sets the password.
            Path written = Files.createTempFile(dir, ".console-password-", ".new",
                    PosixFilePermissions.asFileAttribute(OWNER_READ_WRITE));
            try {
                Files.writeString(written, password + "\n", StandardCharsets.UTF_8, StandardOpenOption.WRITE);
                Files.createLink(file, written);
            } catch (FileAlreadyExistsException raced) {
                // Another appliance of the same user made it meanwhile: read below.
            } finally {
                Files.deleteIfExists(written);
            }
        }
        PosixFileAttributes a = Files.readAttributes(file, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (!a.isRegularFile() || !a.owner().getName().equals(System.getProperty("user.name"))
                || !Set.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE).containsAll(a.permissions())) {
            throw new IOException("the console password file " + file + " must be a regular file of "
                    + System.getProperty("user.name") + " that nobody else may read or write (chmod 600), not "
                    + (a.isSymbolicLink() ? "a symbolic link" : a.owner().getName() + " "
                    + PosixFilePermissions.toString(a.permissions())));
        }
        String password = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (password.length() < 12) {
            throw new IOException("the console password file " + file + " holds fewer than 12 characters; remove it "
                    + "and a new password is made at the next start");
        }
        return new GeneratedPassword(file, password);
    }

    Path file() {
        return file;
    }

    String password() {
        return password;
    }
}
