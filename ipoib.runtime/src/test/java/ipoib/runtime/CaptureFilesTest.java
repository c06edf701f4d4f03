package ipoib.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CaptureFilesTest {

    @TempDir
    Path tmp;

    @Test
    void namesThatLeaveTheDirectoryAreRefused() {
        CaptureFiles files = CaptureFiles.in(tmp.resolve("captures"));
        for (String name : new String[] {"../../tmp/x", "../x", "a/../../x", "/etc/passwd", "sub/x.pcapng", "./x", "",
                tmp + "/x.pcapng", tmp.resolve("captures") + "/../x"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> files.resolve(name), name);
            assertTrue(e.getMessage().contains("allowed: a file name in the capture directory " + tmp.resolve("captures")),
                    e.getMessage());
        }
        assertEquals(tmp.resolve("captures/x.pcapng"), files.resolve("x.pcapng"));
        assertEquals(tmp.resolve("captures/x.pcapng"), files.resolve(tmp.resolve("captures") + "/x.pcapng"));
    }

    @Test
    void theDirectoryIsMadeForTheOwnerOnlyAndAFileIsCreatedNew() throws IOException {
        CaptureFiles files = CaptureFiles.in(tmp.resolve("captures"));
        Path file = files.resolve("a.pcapng");
        try (FileChannel c = files.create(file)) {
            c.write(ByteBuffer.wrap("one".getBytes(StandardCharsets.UTF_8)));
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(files.directory())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        IOException exists = assertThrows(IOException.class, () -> files.create(file));
        assertTrue(exists.getMessage().contains("a.pcapng exists in " + files.directory()), exists.getMessage());
        assertEquals("one", Files.readString(file), "an existing capture is not overwritten");
    }

    @Test
    void aSymbolicLinkAtTheNameIsNotFollowed() throws IOException {
        CaptureFiles files = CaptureFiles.in(tmp.resolve("captures"));
        Files.createDirectory(files.directory(), PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        Path victim = Files.writeString(tmp.resolve("victim"), "precious");
        Files.createSymbolicLink(files.directory().resolve("x.pcapng"), victim);
        assertThrows(IOException.class, () -> files.create(files.resolve("x.pcapng")));
        assertEquals("precious", Files.readString(victim));
    }

    @Test
    void aDirectoryOthersMayWriteToOrALinkIsRefused() throws IOException {
        Path shared = Files.createDirectory(tmp.resolve("shared"));
        Files.setPosixFilePermissions(shared, PosixFilePermissions.fromString("rwxrwxrwx"));
        CaptureFiles files = CaptureFiles.in(shared);
        IOException e = assertThrows(IOException.class, () -> files.create(files.resolve("x.pcapng")));
        assertTrue(e.getMessage().contains("must belong to") && e.getMessage().contains("writable by nobody else"),
                e.getMessage());
        assertTrue(Files.notExists(shared.resolve("x.pcapng")));

        Path own = Files.createDirectory(tmp.resolve("own"));
        Path link = Files.createSymbolicLink(tmp.resolve("link"), own);
        CaptureFiles linked = CaptureFiles.in(link);
        e = assertThrows(IOException.class, () -> linked.create(linked.resolve("x.pcapng")));
        assertTrue(e.getMessage().contains("is a symbolic link"), e.getMessage());
    }

    @Test
    void theDirectoryComesFromTheLaunchPropertyOrDefaultsToCapturesInTheWorkingDirectory() {
        assertEquals(tmp, CaptureFiles.fromProperties(Map.of(CaptureFiles.DIRECTORY_PROPERTY, tmp.toString())::get).directory());
        assertEquals(Path.of("captures").toAbsolutePath(), CaptureFiles.fromProperties(k -> null).directory());
    }
}
