package ipoib.runtime;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.attribute.UserPrincipal;
import java.util.Set;
import java.util.function.UnaryOperator;

/**
 * Where the capture commands write: files directly in one capture directory (launch property
 * {@value #DIRECTORY_PROPERTY}, default {@value #DEFAULT_DIRECTORY} in the working directory). The
 * appliance runs as root and the file name comes from a console user, so a name that leaves the
 * directory ({@code ..}, another absolute path, a subdirectory) is refused, the directory must be
 * the appliance user's own and writable by nobody else (no one can swap a file or a link in), and a
 * file is created new and never through a symbolic link: an existing name is refused, not
 * overwritten.
 */
public final class CaptureFiles {
    /** Launch (framework or system) property naming the capture directory. */
    public static final String DIRECTORY_PROPERTY = "ipoib.capture.dir";
    /** The capture directory when the property is not set, relative to the working directory. */
    public static final String DEFAULT_DIRECTORY = "captures";

    private static final Set<PosixFilePermission> OWNER_ONLY = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_MODE = PosixFilePermissions.fromString("rw-------");

    private final Path directory;

    private CaptureFiles(Path directory) {
        this.directory = directory;
    }

    /** The capture directory the launch properties name (e.g. {@code BundleContext::getProperty}). */
    public static CaptureFiles fromProperties(UnaryOperator<String> properties) {
        String configured = properties.apply(DIRECTORY_PROPERTY);
        return in(Path.of(configured == null || configured.isBlank() ? DEFAULT_DIRECTORY : configured.strip()));
    }

    public static CaptureFiles in(Path directory) {
        return new CaptureFiles(directory.toAbsolutePath().normalize());
    }

    public Path directory() {
        return directory;
    }

    /**
     * The capture file a user named: a plain file name, or an absolute path directly in the directory.
     *
     * @throws IllegalArgumentException naming the value and what is allowed
     */
    public Path resolve(String name) {
        String allowed = "allowed: a file name in the capture directory " + directory + " (" + DIRECTORY_PROPERTY + ")";
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("file name is empty; " + allowed);
        }
        Path given;
        try {
            given = Path.of(name);
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("file '" + name + "' is not a valid path (" + e.getReason() + "); " + allowed);
        }
        for (Path part : given) {
            if (part.toString().equals("..") || part.toString().equals(".")) {
                throw new IllegalArgumentException("file '" + name + "' contains '" + part + "'; " + allowed);
            }
        }
        Path relative = given.isAbsolute() ? (given.startsWith(directory) ? directory.relativize(given) : null) : given;
        if (relative == null) {
            throw new IllegalArgumentException("file '" + name + "' is outside the capture directory; " + allowed);
        }
        if (relative.getNameCount() != 1 || relative.toString().isEmpty()) {
            throw new IllegalArgumentException("file '" + name + "' is in a subdirectory; " + allowed);
        }
        return directory.resolve(relative);
    }

    /**
     * Creates a file {@link #resolve} returned, for writing: the directory is made (mode 0700) when
     * missing; the file is new (mode 0600) and not reached through a symbolic link.
     *
     * @throws IOException saying why: the directory is not safe, the file exists, the system refused
     */
    public FileChannel create(Path file) throws IOException {
        if (!directory.equals(file.getParent())) {
            throw new IOException(file + " is not directly in the capture directory " + directory);
        }
        if (!Files.exists(directory, LinkOption.NOFOLLOW_LINKS)) {
            Files.createDirectories(directory.getParent());
            try {
                Files.createDirectory(directory, PosixFilePermissions.asFileAttribute(OWNER_ONLY));
            } catch (FileAlreadyExistsException raced) {
                // Made meanwhile: checked below like any existing directory.
            }
        }
        checkDirectory();
        try {
            return FileChannel.open(file, Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
                    LinkOption.NOFOLLOW_LINKS), PosixFilePermissions.asFileAttribute(FILE_MODE));
        } catch (FileAlreadyExistsException e) {
            throw new IOException(file.getFileName() + " exists in " + directory
                    + "; captures never overwrite a file: choose another name or remove it", e);
        }
    }

    private void checkDirectory() throws IOException {
        PosixFileAttributes a = Files.readAttributes(directory, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        if (a.isSymbolicLink() || !a.isDirectory()) {
            throw new IOException("capture directory " + directory + " is " + (a.isSymbolicLink() ? "a symbolic link" : "not a directory")
                    + "; name a directory of your own with " + DIRECTORY_PROPERTY);
        }
        UserPrincipal self = directory.getFileSystem().getUserPrincipalLookupService()
                .lookupPrincipalByName(System.getProperty("user.name"));
        boolean othersWrite = a.permissions().contains(PosixFilePermission.GROUP_WRITE)
                || a.permissions().contains(PosixFilePermission.OTHERS_WRITE);
        if (!a.owner().equals(self) || othersWrite) {
            throw new IOException("capture directory " + directory + " (owner " + a.owner().getName() + ", mode "
                    + PosixFilePermissions.toString(a.permissions()) + ") must belong to " + self.getName()
                    + " and be writable by nobody else; name another with " + DIRECTORY_PROPERTY);
        }
    }
}
