package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * An exit typed while the hosts' devices are still starting: the exit hook has run, and a device
 * that starts after it must not make a namespace that nothing would remove. (The hook's flag stays
 * set in this JVM: no other test of the module makes a namespace.)
 */
class NamespacesAtExitTest {
    @Test
    void aNamespaceAskedForAfterTheExitHookRanIsRefusedAndNotMade() throws Exception {
        String netns = "ipoib-unit-" + ProcessHandle.current().pid();
        Namespaces.removeOwned(); // as the JVM runs it at exit; this process owns no namespace
        try {
            IOException e = assertThrows(IOException.class, () -> Namespaces.acquire(netns, m -> { }));
            assertEquals("network namespace " + netns + " not made: the appliance is exiting (its exit hook has "
                    + "removed its namespaces)", e.getMessage());
            assertFalse(Files.exists(Path.of("/run/netns", netns)), netns + " made");
        } finally {
            if (Files.exists(Path.of("/run/netns", netns))) {
                new ProcessBuilder("ip", "netns", "del", netns).start().waitFor();
            }
        }
    }
}
