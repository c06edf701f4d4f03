package ipoib.console.internal;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import org.osgi.framework.BundleContext;
import org.osgi.service.log.Logger;

/**
 * Keeps the framework's storage to the appliance's user (mode 0700): ConfigAdmin writes the
 * configurations there with the process's umask (world-readable files under 022), and they hold
 * the console's user name and password hash.
 */
final class StorageProtection {
    private StorageProtection() {}

    /** The storage directory: the parent of the bundle directories ({@code <storage>/bundleN/data}). */
    static Path storage(BundleContext context) {
        File data = context.getDataFile("");
        return data == null ? null : data.toPath().toAbsolutePath().getParent().getParent();
    }

    static void restrict(BundleContext context, Logger log) {
        Path storage = storage(context);
        if (storage == null) {
            return; // a framework without a file system: nothing stored
        }
        try {
            Files.setPosixFilePermissions(storage, PosixFilePermissions.fromString("rwx------"));
        } catch (IOException | UnsupportedOperationException e) {
            log.error("cannot make the framework storage " + storage + " private (mode 0700): " + e);
        }
    }
}
