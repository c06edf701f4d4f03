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
 * TUN descriptor) is {@code java.lang.foreign} only.
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

    /** The multicast groups of a device ({@code ip maddr show dev DEVICE}). */
    static java.util.Set<java.net.InetAddress> groups(String netns, String device) throws IOException {
        java.util.Set<java.net.InetAddress> result = new java.util.LinkedHashSet<>();
        for (String line : in(netns, "maddr", "show", "dev", device).split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length >= 2 && (f[0].equals("inet") || f[0].equals("inet6"))) {
                try {
                    java.net.InetAddress g = java.net.InetAddress.getByName(f[1]);
                    if (g.isMulticastAddress()) {
                        result.add(g);
                    }
                } catch (java.net.UnknownHostException ignored) {
                    // Not an address literal.
                }
            }
        }
        return result;
    }
}
