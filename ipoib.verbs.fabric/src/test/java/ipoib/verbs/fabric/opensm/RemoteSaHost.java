package ipoib.verbs.fabric.opensm;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.mad.SaAttribute;
import ipoib.satest.SaHost;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * A simulated host in a forked JVM ({@link SaHostMain}), seen from the test JVM: its
 * {@link #sa()} forwards every call over the host's stdin and completes from its stdout, so the
 * shared contract drives OpenSM through the real MAD transport of each simulated node.
 */
final class RemoteSaHost implements SaHost, AutoCloseable {
    private final String name;
    private final Process process;
    private final Writer in;
    private final Map<String, CompletableFuture<String[]>> pending = new ConcurrentHashMap<>();
    private final Map<String, Consumer<GroupTrap>> listeners = new ConcurrentHashMap<>();
    private final AtomicInteger ids = new AtomicInteger(1);
    private final CompletableFuture<String[]> ready = new CompletableFuture<>();
    private final Thread reader;
    private final SubnetAdministrator sa = new Proxy("");
    private volatile Gid portGid;
    private volatile Lid lid;

    private RemoteSaHost(String name, Process process) {
        this.name = name;
        this.process = process;
        this.in = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
        pending.put("0", ready);
        this.reader = Thread.ofPlatform().daemon().name("sa-host-" + name).start(this::read);
    }

    /** Forks the host JVM; {@link #awaitReady} waits for its port to be open. */
    static RemoteSaHost fork(String name, Path workDir, Map<String, String> env, Path log, long saTimeoutMillis,
                             int saAttempts, boolean reportReceiver, int rmppWindow) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classpath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        ProcessBuilder pb = new ProcessBuilder(java, "--enable-native-access=ALL-UNNAMED", "-Xshare:auto",
                "-XX:TieredStopAtLevel=1", "-cp", classpath, SaHostMain.class.getName(),
                Long.toString(saTimeoutMillis), Integer.toString(saAttempts), reportReceiver ? "report-receiver" : "",
                Integer.toString(rmppWindow))
                .directory(workDir.toFile()).redirectError(log.toFile());
        pb.environment().putAll(env);
        pb.environment().put("SIM_HOST", name);
        return new RemoteSaHost(name, pb.start());
    }

    /** Waits for the host's "ready" line (port GID and LID). */
    void awaitReady(long timeoutMillis) throws Exception {
        String[] f = ready.get(timeoutMillis, TimeUnit.MILLISECONDS);
        // 0 OK ready CA PORT LID SMLID GID
        lid = new Lid(Integer.parseInt(f[5], 16));
        portGid = Gid.parse(f[7]);
    }

    private void read() {
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            String line;
            while ((line = out.readLine()) != null) {
                String[] f = line.split(" ");
                if (f[0].equals("TRAP")) {
                    Consumer<GroupTrap> l = listeners.get(f[1]);
                    if (l != null) {
                        l.accept(SaWire.trap(f, 2));
                    }
                    continue;
                }
                CompletableFuture<String[]> future = pending.remove(f[0]);
                if (future == null) {
                    continue;
                }
                if (f[1].equals("OK")) {
                    future.complete(f);
                } else {
                    int status = Integer.parseInt(f[2]);
                    String message = String.join(" ", List.of(f).subList(4, f.length));
                    future.completeExceptionally(f[3].equals("1") ? SaException.timeout(message, 0, 0)
                            : status < 0 ? new IllegalStateException(name + ": " + message)
                            : new SaException(message, status));
                }
            }
        } catch (IOException e) {
            // The host is gone; pending requests fail below.
        }
        IllegalStateException gone = new IllegalStateException("host " + name + " exited (exit "
                + (process.isAlive() ? "?" : process.exitValue()) + ")");
        pending.values().forEach(f -> f.completeExceptionally(gone));
    }

    private CompletableFuture<String[]> call(String command) {
        String id = Integer.toString(ids.getAndIncrement());
        CompletableFuture<String[]> future = new CompletableFuture<>();
        pending.put(id, future);
        try {
            synchronized (in) {
                in.write(id + " " + command + "\n");
                in.flush();
            }
        } catch (IOException e) {
            pending.remove(id);
            future.completeExceptionally(new IllegalStateException("host " + name + " is gone", e));
        }
        return future;
    }

    private <T> CompletionStage<T> call(String command, Function<String[], T> decode) {
        return call(command).thenApply(decode);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Gid portGid() {
        return portGid;
    }

    @Override
    public Lid lid() {
        return lid;
    }

    @Override
    public SubnetAdministrator sa() {
        return sa;
    }

    /** The host JVM's process, to stop it and its children. */
    Process process() {
        return process;
    }

    /** Asks the host to leave cleanly (closing its umad port); the caller kills it afterwards. */
    @Override
    public void close() {
        try {
            call("quit").get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            // Killed by the fabric anyway.
        }
    }

    /** "records ATTRIBUTE 0|1 MASK RECORD": any attribute's Get or GetTable, records as hex octets. */
    @Override
    public <R> CompletionStage<List<R>> records(SaAttribute<R> attribute, boolean table, R query, long mask) {
        return call("records " + attribute.name() + " " + (table ? "1" : "0") + " " + Long.toHexString(mask) + " "
                + SaWire.raw(attribute, query))
                .thenApply(f -> {
                    int n = Integer.parseInt(f[3]);
                    List<R> out = new ArrayList<>();
                    for (int i = 0; i < n; i++) {
                        out.add(SaWire.raw(attribute, f[4 + i]));
                    }
                    return out;
                });
    }

    @Override
    public SubnetAdministrator sa(long smKey) {
        return new Proxy("@" + Long.toHexString(smKey) + " ");
    }

    /** Forwards calls; a prefix "@KEY " makes the host use its client's view with that SM_Key. */
    private final class Proxy implements SubnetAdministrator {
        private final String key;

        Proxy(String key) {
            this.key = key;
        }

        private CompletableFuture<String[]> call(String command) {
            return RemoteSaHost.this.call(key + command);
        }

        private <T> CompletionStage<T> call(String command, Function<String[], T> decode) {
            return call(command).thenApply(decode);
        }

        @Override
        public CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey) {
            return call("path " + source + " " + destination + " " + pkey, f -> SaWire.path(f, 3));
        }

        @Override
        public CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state) {
            return call("join " + mgid + " " + portGid + " " + state.bit(), f -> SaWire.member(f, 3));
        }

        @Override
        public CompletionStage<McMemberRecord> create(McMemberRecord template) {
            return call("create " + SaWire.member(template), f -> SaWire.member(f, 3));
        }

        @Override
        public CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state) {
            return call("leave " + mgid + " " + portGid + " " + state.bit(), f -> null);
        }

        @Override
        public CompletionStage<Optional<McMemberRecord>> group(Mgid mgid) {
            return call("group " + mgid, f -> f[2].equals("none") ? Optional.empty()
                    : Optional.of(SaWire.member(f, 3)));
        }

        @Override
        public CompletionStage<List<McMemberRecord>> groups() {
            return call("groups", f -> {
                int n = Integer.parseInt(f[3]);
                List<McMemberRecord> out = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    out.add(SaWire.member(f, 4 + i * SaWire.MEMBER_FIELDS));
                }
                return out;
            });
        }

        @Override
        public Map<String, Long> statistics() {
            // "ID OK stats name=value,name=value" from the host's SA client.
            try {
                String[] f = call("stats").get(10, TimeUnit.SECONDS);
                Map<String, Long> out = new java.util.TreeMap<>();
                for (String pair : f[3].split(",")) {
                    int eq = pair.indexOf('=');
                    out.put(pair.substring(0, eq), Long.parseLong(pair.substring(eq + 1)));
                }
                return out;
            } catch (Exception e) {
                throw new IllegalStateException("host " + name + ": statistics not read: " + e, e);
            }
        }

        @Override
        public CompletionStage<ipoib.api.sa.SaCapabilities> capabilities() {
            return call("caps", f -> new ipoib.api.sa.SaCapabilities(Integer.parseInt(f[3]), Integer.parseInt(f[4]),
                    Integer.parseInt(f[5])));
        }

        @Override
        public CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener) {
            String sub = "s" + ids.getAndIncrement();
            listeners.put(sub, listener);
            return call("subscribe " + sub + " " + type.name() + " " + (mgid == null ? "*" : mgid.toString()),
                    f -> (AutoCloseable) () -> {
                        listeners.remove(sub);
                        call("unsubscribe " + sub).get(5, TimeUnit.SECONDS);
                    });
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
