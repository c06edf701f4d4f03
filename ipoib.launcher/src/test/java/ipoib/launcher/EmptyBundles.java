package ipoib.launcher;

import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;

/** Bundles of no code, installed and started, whose contexts stand for what a real bundle would do. */
final class EmptyBundles {
    private EmptyBundles() {}

    /** Writes {@code name}'s manifest-only jar into {@code storage}, installs it through {@code context} and starts it. */
    static Bundle installAndStart(BundleContext context, Path storage, String name) throws Exception {
        Path jar = storage.resolve(name + ".jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue(Constants.BUNDLE_MANIFESTVERSION, "2");
        manifest.getMainAttributes().putValue(Constants.BUNDLE_SYMBOLICNAME, name);
        try (OutputStream out = Files.newOutputStream(jar); JarOutputStream j = new JarOutputStream(out, manifest)) {
            // The manifest is the bundle.
        }
        Bundle bundle = context.installBundle(jar.toUri().toString());
        bundle.start();
        return bundle;
    }
}
