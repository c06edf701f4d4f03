package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.Test;

/**
 * The class archive the forked appliances share ({@link SharedClassArchive}) is written by a
 * training fork of its own, never by a fork a test starts and reads the status of: the JDK can
 * crash while writing it at exit.
 */
public class SharedClassArchiveIT {

    @Test
    public void aTestsForkNeverWritesTheArchiveAndMapsOneThatExists() throws Exception {
        List<String> options = ApplianceJvm.sharedClasses();

        assertFalse("a test's fork would write the archive: " + options,
                options.stream().anyMatch(o -> o.startsWith("-XX:ArchiveClassesAtExit")));
        List<String> archives = options.stream().filter(o -> o.startsWith("-XX:SharedArchiveFile=")).toList();
        assertEquals("one archive to map: " + options, 1, archives.size());
        Path archive = Path.of(archives.get(0).substring("-XX:SharedArchiveFile=".length()));
        assertTrue("archive written: " + archive, Files.isRegularFile(archive) && Files.size(archive) > 0);
        assertEquals("the same archive for the next fork", options, ApplianceJvm.sharedClasses());
    }
}
