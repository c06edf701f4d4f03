package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileErrorsTest {
    @TempDir
    Path dir;

    private static String openFailure(Path file) {
        try (FileChannel c = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE)) {
            throw new AssertionError("opened " + file);
        } catch (IOException e) {
            return FileErrors.reason(e);
        }
    }

    @Test
    void aMissingDirectoryIsNamed() {
        assertEquals("no such directory '" + dir.resolve("nonexistent/dir") + "'",
                openFailure(dir.resolve("nonexistent/dir/x.pcapng")));
    }

    @Test
    void aDirectoryInPlaceOfTheFileSaysSo() throws IOException {
        Files.createDirectory(dir.resolve("d"));
        assertEquals("Is a directory", openFailure(dir.resolve("d")));
    }
}
