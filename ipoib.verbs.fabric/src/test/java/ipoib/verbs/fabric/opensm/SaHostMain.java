package ipoib.verbs.fabric.opensm;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SaException;
import ipoib.codec.mad.SaAttribute;
import ipoib.runtime.FailureHandler;
import ipoib.runtime.ThreadControlLoop;
import ipoib.sa.SaClient;
import ipoib.verbs.fabric.ffi.Umad;
import ipoib.verbs.fabric.internal.FabricLog;
import ipoib.verbs.fabric.internal.UmadTransport;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * A simulated host, run in a forked JVM under umad2sim with {@code SIM_HOST} set: opens the
 * {@link UmadTransport} of its port, runs the shared {@link SaClient} over it and executes the
 * requests read from stdin, one per line ({@code ID COMMAND ARGS}), answering on stdout
 * ({@code ID OK ...} or {@code ID ERR STATUS TIMEOUT MESSAGE}); group traps arrive as
 * {@code TRAP SUBSCRIPTION TYPE MGID GID} lines. Everything else it prints goes to stderr.
 */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
public final class SaHostMain {
    private static final PrintStream OUT = System.out;

    private SaHostMain() {}

    public static void main(String[] args) throws Throwable {
        System.setOut(System.err); // only protocol lines on stdout
        long timeout = Long.parseLong(args[0]);
        int attempts = Integer.parseInt(args[1]);
        FabricLog log = FabricLog.system("sa-host");
        Umad.Binding binding = Umad.load("libibumad.so.3");
        if (binding.umad() == null) {
            reply("0 ERR -1 0 " + binding.failure());
            return;
        }
        UmadTransport transport;
        try {
            transport = UmadTransport.open(binding.umad(), null, 0, log);
        } catch (RuntimeException e) {
            reply("0 ERR -1 0 " + e.getMessage());
            return;
        }
        ThreadControlLoop timers = new ThreadControlLoop("sa-timers", FailureHandler.JAVA_LOGGING);
        if (args.length > 2 && args[2].equals("report-receiver")) {
            becomeReportReceiver(binding.umad(), transport.portInfo().caName(), transport.portInfo().port());
        }
        transport.expectAnswersWithin(timeout);
        // args[3]: the client's RMPP receive window in segments, 0 for SaClient's default.
        int window = args.length > 3 ? Integer.parseInt(args[3]) : 0;
        SaClient client = window > 0 ? new SaClient(transport, timers, timeout, attempts, 1, window)
                : new SaClient(transport, timers, timeout, attempts, 1);
        Map<String, AutoCloseable> subscriptions = new ConcurrentHashMap<>();
        UmadTransport.PortInfo info = transport.portInfo();
        reply("0 OK ready " + info.caName() + " " + info.port() + " " + SaWire.hex(info.lid().value()) + " "
                + SaWire.hex(info.smLid().value()) + " " + info.portGid());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split(" ");
            String id = words[0];
            // "ID @KEY COMMAND ...": the command through the client's view with that SM_Key.
            boolean keyed = words.length > 1 && words[1].startsWith("@");
            final ipoib.api.sa.SubnetAdministrator sa = keyed
                    ? client.withSmKey(Long.parseUnsignedLong(words[1].substring(1), 16)) : client;
            final String[] f = keyed ? dropSecond(words) : words;
            try {
                switch (f[1]) {
                    case "quit" -> {
                        client.close();
                        transport.close();
                        timers.close();
                        reply(id + " OK bye");
                        return;
                    }
                    case "path" -> answer(id, sa.pathRecord(Gid.parse(f[2]), Gid.parse(f[3]), PKey.parse(f[4])),
                            p -> "path " + SaWire.path(p));
                    case "join" -> answer(id, sa.join(Mgid.parse(f[2]), Gid.parse(f[3]),
                            JoinState.fromBit(Integer.parseInt(f[4]))), r -> "member " + SaWire.member(r));
                    case "create" -> answer(id, sa.create(SaWire.member(f, 2)), r -> "member " + SaWire.member(r));
                    case "leave" -> answer(id, sa.leave(Mgid.parse(f[2]), Gid.parse(f[3]),
                            JoinState.fromBit(Integer.parseInt(f[4]))), v -> "void");
                    case "group" -> answer(id, sa.group(Mgid.parse(f[2])),
                            o -> o.map(r -> "member " + SaWire.member(r)).orElse("none"));
                    case "groups" -> answer(id, sa.groups(), SaHostMain::members);
                    case "records" -> records(id, client, SaAttribute.byName(f[2]), f[3].equals("1"),
                            Long.parseUnsignedLong(f[4], 16), f[5]);
                    case "caps" -> answer(id, sa.capabilities(), c -> "caps " + c.capabilityMask() + " "
                            + c.capabilityMask2() + " " + c.responseTimeValue());
                    case "subscribe" -> {
                        String sub = f[2];
                        GroupTrap.Type type = GroupTrap.Type.valueOf(f[3]);
                        Mgid mgid = f[4].equals("*") ? null : Mgid.parse(f[4]);
                        answer(id, sa.subscribe(type, mgid, t -> reply("TRAP " + sub + " " + SaWire.trap(t))), h -> {
                            subscriptions.put(sub, h);
                            return "subscribed";
                        });
                    }
                    case "unsubscribe" -> {
                        AutoCloseable h = subscriptions.remove(f[2]);
                        if (h != null) {
                            h.close();
                        }
                        reply(id + " OK void");
                    }
                    case "stats" -> reply(id + " OK stats " + client.statistics().entrySet().stream()
                            .map(e -> e.getKey() + "=" + e.getValue()).sorted().collect(Collectors.joining(",")));
                    default -> reply(id + " ERR -1 0 unknown command " + f[1]);
                }
            } catch (RuntimeException e) {
                reply(id + " ERR -1 0 " + e);
            }
        }
    }

    /**
     * ibsim hands unsolicited GSI requests (OpenSM's Reports to a trap subscriber) only to a
     * client flagged as SM. Becoming one makes the SM send SMPs the simulator does not answer
     * itself (SMInfo) to this client; umad2sim crashes on a MAD of a class no agent is registered
     * for, so a second, never-read umad fd registers the SMP classes first. Then the issm device
     * is opened through umad2sim's own open(), which flags the client. Test-only: a real host
     * receives Reports on QP1 without any of this.
     */
    private static void becomeReportReceiver(Umad umad, String ca, int port) throws Throwable {
        try (java.lang.foreign.Arena a = java.lang.foreign.Arena.ofConfined()) {
            int fd = (int) umad.openPort.invokeExact(a.allocateFrom(ca), port);
            java.lang.foreign.MemorySegment mask = a.allocate(16, 8);
            for (int mgmtClass : new int[] {0x01, 0x81}) {
                int agent = (int) umad.register.invokeExact(fd, mgmtClass, 1, (byte) 0, mask);
                if (agent < 0) {
                    throw new IllegalStateException("umad_register(class " + mgmtClass + ") failed: " + agent);
                }
            }
            java.lang.foreign.SymbolLookup sim = java.lang.foreign.SymbolLookup.libraryLookup(
                    OpenSmFabric.UMAD2SIM, java.lang.foreign.Arena.global());
            java.lang.invoke.MethodHandle open = java.lang.foreign.Linker.nativeLinker().downcallHandle(
                    sim.find("open").orElseThrow(), java.lang.foreign.FunctionDescriptor.of(
                            java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.ADDRESS,
                            java.lang.foreign.ValueLayout.JAVA_INT, java.lang.foreign.ValueLayout.JAVA_INT),
                    java.lang.foreign.Linker.Option.firstVariadicArg(2));
            int issm = (int) open.invokeExact(a.allocateFrom("/dev/infiniband/issm0"), 2 /* O_RDWR */, 0);
            if (issm < 0) {
                throw new IllegalStateException("opening the issm device failed");
            }
        }
    }

    /** Any attribute's Get or GetTable: the query and the records as hex octets ({@link SaWire#raw}). */
    private static <R> void records(String id, SaClient client, SaAttribute<R> attribute, boolean table, long mask,
                                    String query) {
        answer(id, client.records(attribute, table, SaWire.raw(attribute, query), mask), list -> "records "
                + list.size() + list.stream().map(r -> " " + SaWire.raw(attribute, r)).collect(Collectors.joining()));
    }

    private static String[] dropSecond(String[] words) {
        String[] rest = new String[words.length - 1];
        rest[0] = words[0];
        System.arraycopy(words, 2, rest, 1, words.length - 2);
        return rest;
    }

    private static String members(List<McMemberRecord> records) {
        return "members " + records.size() + records.stream().map(r -> " " + SaWire.member(r))
                .collect(Collectors.joining());
    }

    private static <T> void answer(String id, CompletionStage<T> stage, java.util.function.Function<T, String> ok) {
        stage.whenComplete((v, failure) -> {
            if (failure == null) {
                reply(id + " OK " + ok.apply(v));
                return;
            }
            Throwable cause = failure instanceof CompletionException c && c.getCause() != null ? c.getCause() : failure;
            if (cause instanceof SaException sa) {
                reply(id + " ERR " + sa.status() + " " + (sa.isTimeout() ? 1 : 0) + " " + oneLine(sa.getMessage()));
            } else {
                reply(id + " ERR -1 0 " + oneLine(String.valueOf(cause)));
            }
        });
    }

    private static String oneLine(String s) {
        return s.replace('\n', ' ');
    }

    private static void reply(String line) {
        synchronized (OUT) {
            OUT.println(line);
            OUT.flush();
        }
    }
}
