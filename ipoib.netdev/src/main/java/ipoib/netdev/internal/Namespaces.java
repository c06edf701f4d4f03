package ipoib.netdev.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The network namespaces appliances own, recorded on disk so that the record outlives a restart
 * of this bundle (a new class loader) and the process itself: {@value #STATE_DIR}{@code /PID-NAME}
 * says that the appliance with process id PID owns namespace NAME. An appliance owns a namespace
 * it created, and one a dead appliance (kill -9) owned that it puts a device into again
 * (adopted: the record moves to it). An owned namespace is removed when the configuration of its
 * last device is deleted and when the appliance exits; a namespace that existed without a record
 * (the user's) is used and never removed. {@link #cleanup()} removes what dead appliances owned.
 */
final class Namespaces {
    static final String STATE_DIR = "/run/ipoib-netdev";
    private static final long SELF = ProcessHandle.current().pid();
    /**
     * Where the process keeps its one exit hook: the newest revision of this bundle replaces the
     * hook of the one before, which would otherwise keep that revision's class loader until exit.
     */
    static final String EXIT_HOOK = "ipoib.netdev.exitHook";
    /** Removes this process's namespaces when the JVM exits (Gogo's exit does not stop the framework first). */
    private static Thread exitHook;
    /**
     * Set by the exit hook: a device that starts while the JVM exits (an exit typed during start-up)
     * would make a namespace no hook removes any more.
     */
    private static boolean exiting;

    private Namespaces() {}

    /**
     * A device is going into {@code netns}: creates it when missing, adopts it from a dead
     * appliance, and refuses one a running appliance owns.
     *
     * @param info told when a namespace is adopted
     * @throws IOException naming the namespace and its owner, or the failed {@code ip} command
     */
    static synchronized void acquire(String netns, Consumer<String> info) throws IOException {
        if (exiting) {
            throw new IOException("network namespace " + netns + " not made: the appliance is exiting (its exit "
                    + "hook has removed its namespaces)");
        }
        Path mine = note(SELF, netns);
        if (!IpRoute.namespaceExists(netns)) {
            IpRoute.run("netns", "add", netns);
            note(mine, netns);
        } else if (!Files.exists(mine)) {
            Long owner = owner(netns);
            if (owner != null && applianceRunning(owner)) {
                throw new IOException("network namespace " + netns + " belongs to the appliance running as process "
                        + owner + " (its ipoib:netdev lists it): choose another namespace, or stop that appliance");
            }
            if (owner == null) {
                return; // the user's own namespace: used, never removed
            }
            try {
                Files.move(note(owner, netns), mine, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                note(mine, netns);
            }
            info.accept("network namespace " + netns + ": adopted from appliance " + owner
                    + ", which no longer runs (killed?); it is this appliance's now");
        }
        watchExit();
    }

    /**
     * Many devices are going into {@code names} (a subnet of hosts): creates the missing ones as
     * this appliance's in one {@code ip} process; those that exist are left to {@link #acquire}
     * (adopted, refused or the user's) when their device comes.
     *
     * @throws IOException naming the namespaces that could not be created and why
     */
    static synchronized void createMissing(List<String> names) throws IOException {
        List<String> lines = new ArrayList<>();
        List<String> created = new ArrayList<>();
        for (String netns : names) {
            if (!IpRoute.namespaceExists(netns)) {
                lines.add("netns add " + netns);
                created.add(netns);
            }
        }
        if (lines.isEmpty()) {
            return;
        }
        IpRoute.Batch batch = IpRoute.batch(null, false, lines);
        for (String netns : created) {
            if (IpRoute.namespaceExists(netns)) {
                note(note(SELF, netns), netns);
            }
        }
        watchExit();
        batch.orThrow(null);
    }

    /**
     * Makes this revision's hook the process's exit hook (the state is on disk, so any revision's
     * hook removes the same namespaces), removing an earlier revision's.
     */
    static void watchExit() {
        Properties store = System.getProperties();
        synchronized (store) {
            if (exitHook == null) {
                exitHook = new Thread(Namespaces::removeOwned, "ipoib-netdev-exit");
            }
            Object earlier = store.get(EXIT_HOOK);
            if (earlier == exitHook) {
                return;
            }
            try {
                if (earlier instanceof Thread hook) {
                    Runtime.getRuntime().removeShutdownHook(hook);
                }
                Runtime.getRuntime().addShutdownHook(exitHook);
                store.put(EXIT_HOOK, exitHook);
            } catch (IllegalStateException exiting) {
                // The JVM is exiting: the hook already registered runs.
            }
        }
    }

    /**
     * The configuration of a device in {@code netns} is gone: removes the namespace when this
     * appliance owns it and none of {@code inUse} (the namespaces of its other devices) is it.
     */
    static synchronized void release(String netns, Set<String> inUse) {
        if (inUse.contains(netns) || !Files.exists(note(SELF, netns))) {
            return;
        }
        try {
            IpRoute.run("netns", "del", netns);
        } catch (IOException e) {
            // Reported by cleanup later: the note stays.
            return;
        }
        unnote(netns);
    }

    /**
     * At exit: removes every namespace this appliance owns. Holds the lock {@link #acquire} holds, so
     * that a namespace being made now is noted before, or refused after.
     */
    static synchronized void removeOwned() {
        exiting = true;
        List<String> owned = new ArrayList<>();
        for (Note n : notes()) {
            if (n.pid() == SELF) {
                owned.add(n.netns());
            }
        }
        if (owned.isEmpty()) {
            return;
        }
        // One ip for all (a process each took most of the exit of many hosts); every line runs, also after one failed.
        List<String> lines = new ArrayList<>();
        for (String netns : owned) {
            lines.add("netns del " + netns);
        }
        try {
            IpRoute.batch(null, false, lines);
        } catch (IOException e) {
            // No ip, or it hung: cleanup removes what is left, the notes say what.
        }
        for (String netns : owned) {
            if (!IpRoute.namespaceExists(netns)) {
                unnote(netns);
            }
        }
    }

    /**
     * Removes the namespaces that appliances no longer running owned (after kill -9), and their
     * notes; keeps those of running appliances. Returns one line per namespace handled.
     */
    static List<String> cleanup() throws IOException {
        List<String> done = new ArrayList<>();
        List<Note> notes = notes();
        for (Note n : notes) {
            if (applianceRunning(n.pid())) {
                done.add(n.netns() + ": kept (appliance " + n.pid() + " is running)");
                continue;
            }
            Long running = runningOwner(notes, n.netns());
            if (running != null) {
                // A dead appliance's note of a namespace deleted by hand and made again: the namespace is the running one's.
                Files.deleteIfExists(n.path());
                done.add(n.netns() + ": note of appliance " + n.pid() + " removed (appliance " + running
                        + " owns the namespace)");
                continue;
            }
            if (IpRoute.namespaceExists(n.netns())) {
                IpRoute.run("netns", "del", n.netns());
                done.add(n.netns() + ": removed (left by appliance " + n.pid() + ")");
            } else {
                done.add(n.netns() + ": already gone (note of appliance " + n.pid() + " removed)");
            }
            Files.deleteIfExists(n.path());
        }
        return done;
    }

    /** Whether process {@code pid} runs and is a JVM (an appliance), not a process that reuses a dead one's id. */
    private static boolean applianceRunning(long pid) {
        return ProcessHandle.of(pid).filter(ProcessHandle::isAlive)
                .map(p -> p.info().command().map(c -> c.endsWith("java")).orElse(true))
                .orElse(false);
    }

    /**
     * The process id another appliance noted for {@code netns}, or null: a running one's before a
     * dead one's (a dead appliance's note may outlive its namespace, made again by another).
     */
    private static Long owner(String netns) {
        List<Note> notes = notes();
        Long running = runningOwner(notes, netns);
        if (running != null) {
            return running;
        }
        for (Note n : notes) {
            if (n.netns().equals(netns) && n.pid() != SELF) {
                return n.pid();
            }
        }
        return null;
    }

    /** The running appliance of {@code notes} that owns {@code netns}, or null. */
    private static Long runningOwner(List<Note> notes, String netns) {
        for (Note n : notes) {
            if (n.netns().equals(netns) && applianceRunning(n.pid())) {
                return n.pid();
            }
        }
        return null;
    }

    private record Note(long pid, String netns, Path path) {}

    private static List<Note> notes() {
        List<Note> result = new ArrayList<>();
        Path dir = Path.of(STATE_DIR);
        if (!Files.isDirectory(dir)) {
            return result;
        }
        try (DirectoryStream<Path> notes = Files.newDirectoryStream(dir)) {
            for (Path note : notes) {
                String file = note.getFileName().toString();
                int dash = file.indexOf('-');
                if (dash <= 0) {
                    continue;
                }
                try {
                    result.add(new Note(Long.parseLong(file.substring(0, dash)), file.substring(dash + 1), note));
                } catch (NumberFormatException e) {
                    // Not a note.
                }
            }
        } catch (IOException e) {
            // Unreadable: nothing is known to be owned.
        }
        return result;
    }

    private static Path note(long pid, String netns) {
        return Path.of(STATE_DIR, pid + "-" + netns);
    }

    private static void note(Path note, String netns) {
        try {
            Files.createDirectories(note.getParent());
            Files.writeString(note, netns + "\n", StandardCharsets.UTF_8);
        } catch (IOException e) {
            // Without the note the namespace is not removed at exit; the namespace itself works.
        }
    }

    private static void unnote(String netns) {
        try {
            Files.deleteIfExists(note(SELF, netns));
        } catch (IOException ignored) {
            // Nothing to do: cleanup skips notes whose namespace is gone.
        }
    }
}
