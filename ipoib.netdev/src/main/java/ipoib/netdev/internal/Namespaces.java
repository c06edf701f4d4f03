package ipoib.netdev.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The network namespaces this process created, counted by the devices in them: a namespace is
 * removed when the last device the appliance put there goes away; one that existed before is
 * left alone. Each created namespace is noted in {@value #STATE_DIR} ({@code PID-NAME}), so that
 * after a {@code kill -9} (which removes the TUN devices with the process, but not the
 * namespaces) {@link #cleanup()} can remove what a dead appliance left.
 */
final class Namespaces {
    static final String STATE_DIR = "/run/ipoib-netdev";
    private static final Map<String, Integer> CREATED = new HashMap<>();
    private static final Map<String, Integer> USERS = new HashMap<>();

    private Namespaces() {}

    /** A device is going into {@code netns}: creates it when missing. */
    static synchronized void acquire(String netns) throws IOException {
        if (!IpRoute.namespaceExists(netns)) {
            IpRoute.run("netns", "add", netns);
            CREATED.put(netns, 1);
            note(netns);
        }
        USERS.merge(netns, 1, Integer::sum);
    }

    /** A device left {@code netns}: removes the namespace when this process created it and no device of it remains. */
    static synchronized void release(String netns) {
        Integer users = USERS.merge(netns, -1, Integer::sum);
        if (users != null && users <= 0) {
            USERS.remove(netns);
            if (CREATED.remove(netns) != null) {
                try {
                    IpRoute.run("netns", "del", netns);
                } catch (IOException e) {
                    // Reported by cleanup later: the note stays.
                    return;
                }
                unnote(netns);
            }
        }
    }

    /** Whether this process created {@code netns}. */
    static synchronized boolean created(String netns) {
        return CREATED.containsKey(netns);
    }

    private static Path note(long pid, String netns) {
        return Path.of(STATE_DIR, pid + "-" + netns);
    }

    private static void note(String netns) {
        try {
            Files.createDirectories(Path.of(STATE_DIR));
            Files.writeString(note(ProcessHandle.current().pid(), netns), netns + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            // Without the note only cleanup after kill -9 is lost; the namespace itself works.
        }
    }

    private static void unnote(String netns) {
        try {
            Files.deleteIfExists(note(ProcessHandle.current().pid(), netns));
        } catch (IOException ignored) {
            // Nothing to do: cleanup skips notes whose namespace is gone.
        }
    }

    /**
     * Removes the namespaces that appliances no longer running created (after kill -9), and their
     * notes. Returns one line per namespace handled.
     */
    static List<String> cleanup() throws IOException {
        List<String> done = new ArrayList<>();
        Path dir = Path.of(STATE_DIR);
        if (!Files.isDirectory(dir)) {
            return done;
        }
        try (DirectoryStream<Path> notes = Files.newDirectoryStream(dir)) {
            for (Path note : notes) {
                String file = note.getFileName().toString();
                int dash = file.indexOf('-');
                if (dash <= 0) {
                    continue;
                }
                long pid;
                try {
                    pid = Long.parseLong(file.substring(0, dash));
                } catch (NumberFormatException e) {
                    continue;
                }
                String netns = file.substring(dash + 1);
                if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
                    done.add(netns + ": kept (appliance " + pid + " is running)");
                    continue;
                }
                if (IpRoute.namespaceExists(netns)) {
                    IpRoute.run("netns", "del", netns);
                    done.add(netns + ": removed (left by appliance " + pid + ")");
                } else {
                    done.add(netns + ": already gone (note of appliance " + pid + " removed)");
                }
                Files.deleteIfExists(note);
            }
        }
        return done;
    }
}
