package ipoib.runtime;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;

/**
 * Why a file could not be opened, in words: NIO's exceptions carry the path as their message
 * ("cannot write 'x': x") and the reason elsewhere.
 */
public final class FileErrors {
    private FileErrors() {}

    /** The reason {@code e} gives for failing on a file, without the file's name. */
    public static String reason(IOException e) {
        if (e instanceof NoSuchFileException missing && missing.getFile() != null) {
            Path parent = Path.of(missing.getFile()).toAbsolutePath().getParent();
            return parent != null && !Files.isDirectory(parent) ? "no such directory '" + parent + "'" : "no such file";
        }
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof FileSystemException fs && fs.getReason() != null) {
            return fs.getReason();
        }
        return e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName();
    }
}
