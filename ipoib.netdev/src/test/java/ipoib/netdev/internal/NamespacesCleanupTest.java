package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@code ipoib:netdev cleanup} with two notes for one namespace: a running appliance's, and a
 * dead one's that nothing removed (its namespace was deleted by hand and made again by the running
 * one). The namespace is the running appliance's: cleanup drops the dead one's note and keeps the
 * namespace. (This test JVM is the running appliance: a running java process.)
 */
class NamespacesCleanupTest {
    @Test
    void aDeadAppliancesNoteDoesNotRemoveTheNamespaceOfARunningOne() throws Exception {
        String netns = "ipoib-cl-" + ProcessHandle.current().pid();
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        Path dead = Path.of(Namespaces.STATE_DIR, gone.pid() + "-" + netns);
        Path mine = Path.of(Namespaces.STATE_DIR, ProcessHandle.current().pid() + "-" + netns);
        try {
            assertTrue(new ProcessBuilder("ip", "netns", "add", netns).start().waitFor() == 0, "ip netns add " + netns);
            Files.createDirectories(dead.getParent());
            Files.writeString(dead, netns + "\n");
            Files.writeString(mine, netns + "\n");

            List<String> done = Namespaces.cleanup();

            assertTrue(Files.exists(Path.of("/run/netns", netns)), "the running appliance's namespace removed: " + done);
            assertTrue(Files.exists(mine), "the running appliance's note removed: " + done);
            assertFalse(Files.exists(dead), "the dead appliance's note kept: " + done);
            assertTrue(done.contains(netns + ": kept (appliance " + ProcessHandle.current().pid() + " is running)"),
                    done.toString());
            assertTrue(done.contains(netns + ": note of appliance " + gone.pid() + " removed (appliance "
                    + ProcessHandle.current().pid() + " owns the namespace)"), done.toString());
        } finally {
            Files.deleteIfExists(dead);
            Files.deleteIfExists(mine);
            if (Files.exists(Path.of("/run/netns", netns))) {
                new ProcessBuilder("ip", "netns", "del", netns).start().waitFor();
            }
        }
    }
}
