package ipoib.verbs.loopback.subnet;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The check {@code ./ipoib --opensm --topology FILE} runs before it starts anything. */
class NetFileCheckTest {
    @TempDir
    Path dir;

    private String write(String name, byte[] content) throws IOException {
        Path file = dir.resolve(name);
        Files.write(file, content);
        return file.toString();
    }

    @Test
    void aNetFileOfOneSwitchAndOneHcaPasses() throws IOException {
        String file = write("one.net", """
                Switch 2 "sw1"
                [1] "hca1"[1]

                Hca 1 "hca1"
                [1] "sw1"[1]
                """.getBytes());
        assertNull(NetFileCheck.problem(file));
    }

    @Test
    void whatIsWrongIsNamedWithTheFile() throws IOException {
        String empty = write("empty.net", new byte[0]);
        assertEquals("net file " + empty + ": a topology needs at least one node", NetFileCheck.problem(empty));
        String binary = write("binary.net", new byte[] {(byte) 0xC3, (byte) 0x28, (byte) 0xFF});
        assertEquals(binary + ": cannot read it (it is not UTF-8 text)", NetFileCheck.problem(binary));
        String missing = dir.resolve("nosuch.net").toString();
        assertEquals(missing + ": no such file", NetFileCheck.problem(missing));
    }
}
