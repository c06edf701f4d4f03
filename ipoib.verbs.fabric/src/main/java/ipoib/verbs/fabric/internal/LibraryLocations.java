package ipoib.verbs.fabric.internal;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Where the provider may load libibverbs and libibumad from. Loading a library runs its code in
 * the appliance (as root), and the library names are configuration that the console can change,
 * so a path must lie in a system library directory (those ld.so searches by default: /lib,
 * /usr/lib, their multiarch subdirectory, /lib64, /usr/lib64, /usr/local/lib) or in a directory
 * of the launch property {@value #DIRECTORIES_PROPERTY}, which no console can set. A bare file
 * name is left to the dynamic loader's own search path.
 */
final class LibraryLocations {
    /** Launch (framework or system) property: more directories, separated by ':'. */
    static final String DIRECTORIES_PROPERTY = "ipoib.fabric.libraryDirs";

    private static final Pattern FILE_NAME = Pattern.compile("[A-Za-z0-9._+-]+");

    private final List<Path> directories;
    private final Set<Path> realDirectories = new LinkedHashSet<>();

    private LibraryLocations(List<Path> directories) {
        this.directories = List.copyOf(directories);
        for (Path d : directories) {
            try {
                realDirectories.add(d.toRealPath());
            } catch (IOException | SecurityException missing) {
                // A directory this machine does not have holds no library.
            }
        }
    }

    /** The system's library directories and those of the launch property. */
    static LibraryLocations fromProperties(UnaryOperator<String> properties) {
        List<Path> dirs = new ArrayList<>(systemDirectories());
        String extra = properties.apply(DIRECTORIES_PROPERTY);
        if (extra != null) {
            for (String d : extra.split(":")) {
                if (!d.isBlank() && d.strip().startsWith("/")) {
                    dirs.add(Path.of(d.strip()));
                }
            }
        }
        return new LibraryLocations(dirs);
    }

    static LibraryLocations system() {
        return new LibraryLocations(systemDirectories());
    }

    private static List<Path> systemDirectories() {
        String triplet = switch (System.getProperty("os.arch", "").toLowerCase(Locale.ROOT)) {
            case "amd64", "x86_64" -> "x86_64-linux-gnu";
            case "aarch64", "arm64" -> "aarch64-linux-gnu";
            case "ppc64le" -> "powerpc64le-linux-gnu";
            case "s390x" -> "s390x-linux-gnu";
            default -> null;
        };
        List<Path> dirs = new ArrayList<>(List.of(Path.of("/lib"), Path.of("/usr/lib"), Path.of("/lib64"),
                Path.of("/usr/lib64"), Path.of("/usr/local/lib")));
        if (triplet != null) {
            dirs.add(Path.of("/lib", triplet));
            dirs.add(Path.of("/usr/lib", triplet));
        }
        return dirs;
    }

    /**
     * The library to load, checked.
     *
     * @throws IllegalArgumentException naming the property, the value and what is allowed
     */
    String check(String property, String value) {
        if (value == null || value.isBlank()) {
            throw refused(property, value, "");
        }
        String name = value.strip();
        if (!name.contains("/")) {
            if (!FILE_NAME.matcher(name).matches()) {
                throw refused(property, value, " (a file name is made of A-Z a-z 0-9 . _ + -)");
            }
            return name;
        }
        Path real;
        try {
            Path path = Path.of(name);
            if (!path.isAbsolute()) {
                throw refused(property, value, " (a path must be absolute)");
            }
            // The real path: a link in a system directory that points elsewhere is judged by its target.
            real = path.toRealPath();
        } catch (InvalidPathException | IOException e) {
            throw refused(property, value, " (" + name + " does not exist)");
        }
        if (!Files.isRegularFile(real) || !realDirectories.contains(real.getParent())) {
            throw refused(property, value, " (" + name + (real.toString().equals(name) ? "" : " is " + real)
                    + " and not in one of them)");
        }
        return real.toString();
    }

    private IllegalArgumentException refused(String property, String value, String why) {
        return new IllegalArgumentException("invalid fabric provider property '" + property + "' value '" + value
                + "': allowed a library file name (found on the dynamic loader's search path) or a path in "
                + String.join(", ", directories.stream().map(Path::toString).toList())
                + " or a directory of the launch property " + DIRECTORIES_PROPERTY + why + "; nothing was loaded");
    }
}
