package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A TUN device made directly in a named network namespace (root: it makes namespace
 * {@code ipoib-tun-PID}; run under {@code flock /tmp/ipoib-netns.lock}): the device is there with
 * its final name, not in this process's namespace, and goes with its descriptor; the calling
 * thread stays where it was.
 */
class TunInNamespaceTest {
    private static String ip(String... args) throws Exception {
        String[] command = new String[args.length + 1];
        command[0] = "ip";
        System.arraycopy(args, 0, command, 1, args.length);
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        return p.exitValue() + " " + out;
    }

    @Test
    void theDeviceIsMadeInTheNamespaceUnderItsNameAndGoesWithItsDescriptor() throws Exception {
        assumeTrue(Tun.missingPrivilege() == null, "needs /dev/net/tun and CAP_NET_ADMIN");
        String netns = "ipoib-tun-" + ProcessHandle.current().pid();
        String device = "ibt" + (ProcessHandle.current().pid() % 100000);
        assertTrue(ip("netns", "add", netns).startsWith("0 "));
        try {
            Tun tun = Tun.openIn(netns, device, true);
            try {
                assertEquals(device, tun.name());
                assertTrue(tun.offload());
                assertTrue(ip("-n", netns, "link", "show", "dev", device).startsWith("0 "), "device in " + netns);
                assertFalse(ip("link", "show", "dev", device).startsWith("0 "), "device in this process's namespace");
                // The calling thread did not move: a device it opens now is in its own namespace.
                try (Tun here = Tun.open(device + "h", false)) {
                    assertTrue(ip("link", "show", "dev", device + "h").startsWith("0 "), "opened in this namespace");
                }
            } finally {
                tun.close();
            }
            assertFalse(ip("-n", netns, "link", "show", "dev", device).startsWith("0 "), "device left after close");
            IOException e = assertThrows(IOException.class, () -> Tun.openIn(netns + "-missing", device, false));
            assertTrue(e.getMessage().startsWith("network namespace " + netns + "-missing: open /run/netns/"),
                    e.getMessage());
        } finally {
            ip("netns", "del", netns);
        }
    }

    /** A name held by an open TUN device or by a device of another kind is refused in words, by the kernel's answer. */
    @Test
    void aTakenDeviceNameIsSaidToBeTaken() throws Exception {
        assumeTrue(Tun.missingPrivilege() == null, "needs /dev/net/tun and CAP_NET_ADMIN");
        String netns = "ipoib-tun-taken-" + ProcessHandle.current().pid();
        assertTrue(ip("netns", "add", netns).startsWith("0 "));
        try (Tun open = Tun.openIn(netns, "ib0", true)) {
            IOException busy = assertThrows(IOException.class, () -> Tun.openIn(netns, "ib0", true));
            assertTrue(busy.getMessage().startsWith("device name 'ib0' is taken: a TUN device of that name is open already"),
                    busy.getMessage());
            IOException loopback = assertThrows(IOException.class, () -> Tun.openIn(netns, "lo", true));
            assertTrue(loopback.getMessage().startsWith("device name 'lo' is taken by a device that is not a TUN device"),
                    loopback.getMessage());
        } finally {
            ip("netns", "del", netns);
        }
    }
}
