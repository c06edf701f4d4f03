package ipoib.netdev.internal;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The control plane of the devices through iproute2's {@code ip} command: namespaces, moving
 * and renaming a device, MTU, addresses, up. Why a command and not netlink through
 * {@code java.lang.foreign}: creating a named namespace is more than netlink (a thread that
 * unshares, a bind mount of {@code /proc/self/ns/net} under {@code /run/netns}, the mount
 * propagation {@code ip netns add} sets up), and {@code ip netns exec}, which users run against
 * these namespaces, expects exactly iproute2's layout; configuration runs a few times per
 * device, never on the data path, and the exact command is in every error. The data path (the
 * TUN descriptor) is {@code java.lang.foreign} only. What is done together runs as one process
 * ({@link #batch}): starting {@code ip} costs more than the command, and hundreds of hosts start
 * at once.
 */
final class IpRoute {
    static final Path NETNS_DIR = Path.of("/run/netns");
    private static final long TIMEOUT_SECONDS = 10;

    private IpRoute() {}

    /** Runs {@code ip ARGS}; returns its standard output. */
    static String run(String... args) throws IOException {
        List<String> command = new ArrayList<>(args.length + 1);
        command.add("ip");
        command.addAll(List.of(args));
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            throw new IOException("cannot run 'ip' (iproute2 is needed: apt-get install iproute2): " + e.getMessage(), e);
        }
        try {
            p.getOutputStream().close();
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", command) + ": no answer within " + TIMEOUT_SECONDS + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            if (p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed (exit " + p.exitValue() + "): " + out);
            }
            return out;
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(String.join(" ", command) + ": interrupted", e);
        }
    }

    /**
     * The commands' lines (each an {@code ip} command without the {@code ip}, e.g. {@code link set
     * dev lo up}) through one {@code ip [-o] [-n NETNS] -force -batch -}: every line runs, also after one
     * failed. {@code oneLine} is {@code ip -o} (one output line per record, as {@link #state} parses).
     */
    static Batch batch(String netns, boolean oneLine, List<String> lines) throws IOException {
        List<String> command = new ArrayList<>();
        command.add("ip");
        if (oneLine) {
            command.add("-o");
        }
        if (netns != null) {
            command.add("-n");
            command.add(netns);
        }
        command.addAll(List.of("-force", "-batch", "-"));
        Process p;
        try {
            p = new ProcessBuilder(command).start();
        } catch (IOException e) {
            throw new IOException("cannot run 'ip' (iproute2 is needed: apt-get install iproute2): " + e.getMessage(), e);
        }
        String shown = String.join(" ", command) + " (" + String.join("; ", lines) + ")";
        try {
            try (var in = p.getOutputStream()) {
                in.write((String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8));
            } catch (IOException gone) {
                // ip ended before reading (e.g. no such namespace): its status and message say why.
            }
            if (!p.waitFor(TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(shown + ": no answer within " + TIMEOUT_SECONDS + " s");
            }
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            String err = new String(p.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            List<String> failed = failedLines(lines, err);
            if (p.exitValue() != 0 && failed.isEmpty()) {
                failed = List.copyOf(lines); // ip itself failed (e.g. no such namespace): none of them ran
            }
            return new Batch(out, failed, err);
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(shown + ": interrupted", e);
        }
    }

    /** What a {@link #batch} printed, and the lines that failed with the errors {@code ip} gave. */
    record Batch(String output, List<String> failed, String errors) {
        /** Throws naming the failed lines and {@code ip}'s errors, unless none failed. */
        Batch orThrow(String netns) throws IOException {
            if (!failed.isEmpty()) {
                throw new IOException("ip" + (netns == null ? "" : " -n " + netns) + " " + String.join("; ip ", failed)
                        + " failed: " + errors.replaceAll("\\s*\\n\\s*", "; "));
            }
            return this;
        }
    }

    /** The lines {@code ip -batch -} named in its "Command failed -:N" messages (N counts from 1). */
    static List<String> failedLines(List<String> lines, String errors) {
        List<String> failed = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("Command failed -:(\\d+)").matcher(errors);
        while (m.find()) {
            int n = Integer.parseInt(m.group(1));
            failed.add(n >= 1 && n <= lines.size() ? lines.get(n - 1) : "line " + n);
        }
        return failed;
    }

    /** A device's addresses ({@code address/prefix}) and multicast groups, from one {@code ip -o} batch. */
    record State(List<String> addresses, java.util.Set<java.net.InetAddress> groups) {}

    /**
     * Runs {@code before} (e.g. an MTU change; none when empty), then reads the device's addresses
     * and groups, in one process (the reconciliation reads them without one: {@link KernelState}).
     */
    static State state(String netns, String device, List<String> before) throws IOException {
        List<String> lines = new ArrayList<>(before);
        lines.add("addr show dev " + device);
        lines.add("maddr show dev " + device);
        return parseState(batch(netns, true, lines).orThrow(netns).output());
    }

    /**
     * Parses {@code ip -o addr show} and {@code ip -o maddr show} output together: an address has a
     * prefix ({@code inet 10.0.0.1/24}), a group has none ({@code inet  224.0.0.1}).
     */
    static State parseState(String output) {
        List<String> addresses = new ArrayList<>();
        java.util.Set<java.net.InetAddress> groups = new java.util.LinkedHashSet<>();
        for (String line : output.split("\n")) {
            String[] f = line.trim().split("[\\s\\\\]+");
            for (int i = 0; i + 1 < f.length; i++) {
                if (!f[i].equals("inet") && !f[i].equals("inet6")) {
                    continue;
                }
                if (f[i + 1].contains("/")) {
                    addresses.add(f[i + 1]);
                } else {
                    try {
                        java.net.InetAddress g = java.net.InetAddress.getByName(f[i + 1]);
                        if (g.isMulticastAddress()) {
                            groups.add(g);
                        }
                    } catch (java.net.UnknownHostException ignored) {
                        // Not an address literal.
                    }
                }
                break;
            }
        }
        return new State(addresses, groups);
    }

    /** {@code ip [-n NETNS] ARGS}: the command in a namespace, or in this process's one when netns is null. */
    static String in(String netns, String... args) throws IOException {
        if (netns == null) {
            return run(args);
        }
        String[] all = new String[args.length + 2];
        all[0] = "-n";
        all[1] = netns;
        System.arraycopy(args, 0, all, 2, args.length);
        return run(all);
    }

    static boolean namespaceExists(String netns) {
        return Files.exists(NETNS_DIR.resolve(netns));
    }

    /**
     * The addresses the kernel has on a device, as {@code address/prefix} (IPv6 without scope),
     * from {@code ip -o addr show dev DEVICE}.
     */
    static List<String> addresses(String netns, String device) throws IOException {
        List<String> result = new ArrayList<>();
        for (String line : in(netns, "-o", "addr", "show", "dev", device).split("\n")) {
            String[] f = line.trim().split("\\s+");
            for (int i = 0; i + 1 < f.length; i++) {
                if (f[i].equals("inet") || f[i].equals("inet6")) {
                    result.add(f[i + 1]);
                }
            }
        }
        return result;
    }

    /**
     * The kernel's queue in front of the device: its length ({@code txqlen}) and the packets the
     * kernel dropped because it was full ({@code tx dropped}: the bridge did not read them in
     * time), from {@code ip -s -j link show dev DEVICE}.
     */
    static DeviceQueue queue(String netns, String device) throws IOException {
        String json = in(netns, "-s", "-j", "link", "show", "dev", device);
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("\"txqlen\":(\\d+)").matcher(json);
        java.util.regex.Matcher dropped = java.util.regex.Pattern.compile("\"tx\":\\{[^}]*\"dropped\":(\\d+)")
                .matcher(json);
        if (!length.find() || !dropped.find()) {
            throw new IOException("ip -s -j link show dev " + device + ": no txqlen or tx dropped in " + json);
        }
        return new DeviceQueue(Integer.parseInt(length.group(1)), Long.parseLong(dropped.group(1)));
    }

    /** A device's transmit queue as the kernel reports it. */
    record DeviceQueue(int length, long dropped) {}
}
