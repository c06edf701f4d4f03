package ipoib.netdev.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.AddressBits;
import ipoib.runtime.JsonText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * {@code ipoib:netdev}: bridged interfaces as Linux network devices. {@code add} and {@code del}
 * write and delete the factory configurations {@value NetdevComponent#FACTORY_PID}, and wait for
 * the device to appear or go.
 */
@Component(service = NetdevCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=netdev",
        "ipoib.command.completion=netdev list --json",
        "ipoib.command.completion=netdev --json",
        "ipoib.command.completion=netdev add <interface>",
        "ipoib.command.completion=netdev del <interface>",
        "ipoib.command.completion=netdev await <seconds>",
        "ipoib.command.completion=netdev cleanup"})
public final class NetdevCommands {
    static final String USAGE = "ipoib:netdev [list] [--json]\n"
            + "       ipoib:netdev add <interface> [netns <name>] [dev <device>] [offload on|off] [<address>/<prefix> ...]\n"
            + "       ipoib:netdev del <interface>\n"
            + "       ipoib:netdev await [seconds]\n"
            + "       ipoib:netdev cleanup";
    private static final long WAIT_MILLIS = 20_000;

    private final ConfigurationAdmin configurationAdmin;
    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @Activate
    public NetdevCommands(@Reference ConfigurationAdmin configurationAdmin) {
        this.configurationAdmin = configurationAdmin;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    @Descriptor("IPoIB interfaces as Linux network devices (TUN), optionally in network namespaces: list, add, del, "
            + "cleanup (namespaces a killed appliance left)")
    public String netdev(@Descriptor("[list] | add <interface> [netns <name>] [dev <device>] [offload on|off] "
            + "[address/prefix ...] "
            + "| del <interface> | cleanup; --json: the list as JSON") String... options) throws Exception {
        boolean json = JsonText.wanted(options);
        String[] args = JsonText.withoutFlag(options);
        if (args.length == 0 || args[0].equals("list")) {
            if (args.length > 1) {
                throw usage("list takes no arguments");
            }
            return json ? listJson() : list();
        }
        if (json) {
            throw usage(JsonText.FLAG + " goes with the list only");
        }
        return switch (args[0]) {
            case "add" -> add(args);
            case "del" -> del(args);
            case "await" -> await(args);
            case "cleanup" -> {
                if (args.length != 1) {
                    throw usage("cleanup takes no arguments");
                }
                List<String> done = Namespaces.cleanup();
                yield done.isEmpty() ? "nothing to clean up (no namespace left by a stopped appliance in "
                        + Namespaces.STATE_DIR + ")" : String.join("\n", done);
            }
            default -> throw usage("unknown subcommand '" + args[0] + "'");
        };
    }

    static IllegalArgumentException usage(String error) {
        return new IllegalArgumentException(error + "\nusage: " + USAGE);
    }

    private String list() {
        List<NetdevComponent> all = Registry.all();
        Map<String, ParkedDevices.Parked> kept = ParkedDevices.all();
        if (all.isEmpty() && kept.isEmpty()) {
            String hostsFailure = HostsSetup.failure();
            return "no bridged interfaces (ipoib:netdev add <interface> [netns <name>] [address ...])"
                    + (hostsFailure == null ? "" : "\n" + hostsFailure);
        }
        StringBuilder out = new StringBuilder();
        for (NetdevComponent c : all) {
            describe(c, out);
        }
        for (ParkedDevices.Parked p : kept.values()) {
            out.append(String.format("%s: device %s  netns %s  carrier off (kept while interface %s is not running)%n",
                    p.link(), p.device(), p.netns().isEmpty() ? "-" : p.netns(), p.link()));
        }
        long syncFailures = Registry.syncFailures();
        if (syncFailures > 0) {
            out.append(String.format("reconciliation failures: %d (each logged, at most one a minute)%n", syncFailures));
        }
        return out.toString();
    }

    private static String listJson() {
        return JsonText.of(listing());
    }

    /**
     * The {@code ipoib:netdev --json} object: {"devices": [...], "parked": [...],
     * "reconciliationFailures": n}, the fields of the text listing, every counter; also the
     * console's netdev tables ({@link NetdevListing}).
     */
    static Map<String, Object> listing() {
        List<Map<String, Object>> devices = new ArrayList<>();
        for (NetdevComponent c : Registry.all()) {
            NetDevice d = c.device();
            devices.add(deviceRecord(c.link(), d.device(), d.netns(), d.mtu(), c.stack().up(), d.bridge().offload(),
                    d.kernelAddresses(), d.bridge().membership().groups().stream().map(AddressBits::text).toList(),
                    d.counters(), d.lastError()));
        }
        List<Map<String, Object>> parked = new ArrayList<>();
        for (ParkedDevices.Parked p : ParkedDevices.all().values()) {
            parked.add(JsonText.record("interface", p.link(), "device", p.device(),
                    "netns", p.netns().isEmpty() ? null : p.netns()));
        }
        return JsonText.record("devices", devices, "parked", parked,
                "reconciliationFailures", Registry.syncFailures());
    }

    /** One device of {@code ipoib:netdev --json}; a device in the appliance's own namespace has netns null. */
    static Map<String, Object> deviceRecord(String link, String device, String netns, int mtu, boolean up,
                                            boolean offload, List<?> addresses, List<String> groups,
                                            Map<String, Long> counters, Object error) {
        return JsonText.record("interface", link, "device", device, "netns", netns, "mtu", mtu, "up", up,
                "offload", offload, "addresses", addresses, "groups", groups, "counters", counters, "error", error);
    }

    private static void describe(NetdevComponent c, StringBuilder out) {
        {
            NetDevice d = c.device();
            out.append(String.format("%s: device %s  netns %s  mtu %d  link %s  offload %s%n", c.link(), d.device(),
                    d.netns() == null ? "-" : d.netns(), d.mtu(),
                    c.stack().up() ? "UP" : "not UP (" + c.stack().link().stateReason() + ")",
                    d.bridge().offload() ? "tso,csum" : "off"));
            out.append("    addresses:");
            for (Cidr a : d.kernelAddresses()) {
                out.append(' ').append(a);
            }
            out.append('\n');
            if (!d.bridge().membership().groups().isEmpty()) {
                out.append("    groups:");
                d.bridge().membership().groups().forEach(g -> out.append(' ').append(AddressBits.text(g)));
                out.append('\n');
            }
            out.append("    counters:");
            for (Map.Entry<String, Long> e : d.counters().entrySet()) {
                if (e.getValue() != 0 || e.getKey().equals("tx_packets") || e.getKey().equals("rx_packets")) {
                    out.append(' ').append(e.getKey()).append(' ').append(e.getValue());
                }
            }
            out.append('\n');
            out.append("    kernel queue: ").append(queue(d)).append('\n');
            if (d.lastError() != null) {
                out.append("    error: ").append(d.lastError()).append('\n');
            }
        }
    }

    /**
     * The kernel's queue to the bridge: what it dropped is the kernel's, counted in the namespace
     * ({@code ip -s link}), and shown here so that every drop on the way is in one place.
     */
    private static String queue(NetDevice d) {
        try {
            IpRoute.DeviceQueue q = IpRoute.queue(d.netns(), d.device());
            return "length " + q.length() + " dropped " + q.dropped();
        } catch (IOException e) {
            return "unknown (" + e.getMessage() + ")";
        }
    }

    private String add(String[] args) throws IOException, InvalidSyntaxException, InterruptedException {
        if (args.length < 2) {
            throw usage("add needs an interface");
        }
        String link = args[1];
        String netns = "";
        String device = "";
        boolean offload = true;
        List<String> addresses = new ArrayList<>();
        for (int i = 2; i < args.length; i++) {
            switch (args[i]) {
                case "offload" -> {
                    String value = i + 1 < args.length ? args[++i] : "";
                    if (!value.equals("on") && !value.equals("off")) {
                        throw usage("offload '" + value + "': allowed on or off");
                    }
                    offload = value.equals("on");
                }
                case "netns", "dev" -> {
                    if (i + 1 >= args.length) {
                        throw usage("'" + args[i] + "' needs a name");
                    }
                    if (args[i].equals("netns")) {
                        netns = args[++i];
                    } else {
                        device = args[++i];
                    }
                }
                default -> addresses.add(address(args, i));
            }
        }
        String missing = Tun.missingPrivilege();
        if (missing != null) {
            throw new IllegalStateException("cannot create network devices: " + missing);
        }
        if (links.stream().noneMatch(l -> l.name().equals(link))) {
            throw usage("no interface '" + link + "' (ipoib:links lists them)");
        }
        if (find(link) != null) {
            throw usage(link + " is already bridged (ipoib:netdev del " + link + " first)");
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("link", link);
        props.put("link.target", "(" + IpoibLink.NAME_PROPERTY + "=" + link + ")");
        props.put("device", device);
        props.put("netns", netns);
        props.put("addresses", addresses.toArray(new String[0]));
        props.put("offload", offload);
        try {
            NetdevComponent.check(new Check(link, device, netns), links.stream()
                    .filter(l -> l.name().equals(link)).findFirst().orElseThrow());
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        Registry.clearFailure(link);
        Configuration c = configurationAdmin.getFactoryConfiguration(NetdevComponent.FACTORY_PID, link, "?");
        c.update(props);
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (System.nanoTime() < deadline) {
            NetdevComponent up = Registry.get(link);
            if (up != null) {
                // The listing shows the addresses and groups the device has, after a first reconciliation.
                up.device().sync();
                StringBuilder out = new StringBuilder();
                describe(up, out);
                return out.toString();
            }
            String failure = Registry.failure(link);
            if (failure != null) {
                c.delete();
                throw new IllegalStateException("cannot bridge " + link + ": " + failure);
            }
            Thread.sleep(20);
        }
        throw new IllegalStateException(link + ": the device did not come up within " + WAIT_MILLIS / 1000
                + " s (configuration " + c.getPid() + " stays; scr:info and the log tell why)");
    }

    /**
     * The address {@code args[i]} of {@code add}. A word that is no address at all is named as
     * such, with the likely cause when it follows a name: a name typed with a space in it.
     */
    private static String address(String[] args, int i) {
        String word = args[i];
        try {
            return Cidr.parse(word).toString();
        } catch (IllegalArgumentException e) {
            boolean addressLike = word.contains("/") || (word.matches("[0-9A-Fa-f:.]+") && word.matches(".*[.:].*"));
            if (addressLike) {
                throw usage(e.getMessage());
            }
            String option = args[i - 2];
            String split = option.equals("dev") || option.equals("netns")
                    ? "; a " + (option.equals("dev") ? "device" : "namespace") + " name is one word of A-Z a-z 0-9 _ . - ("
                            + option + " took '" + args[i - 1] + "')"
                    : "";
            throw usage("'" + word + "' is not netns, dev, offload or an <address>/<prefix>" + split);
        }
    }

    /**
     * Waits until every configured bridge has its device, its interface is UP, and the device has
     * the link MTU, its carrier on and the interface's addresses (none tentative, an IPv6
     * link-local among them where IPv6 is resolved); then lists them.
     */
    private String await(String[] args) throws IOException, InvalidSyntaxException, InterruptedException {
        if (args.length > 2) {
            throw usage("await takes at most a number of seconds");
        }
        int seconds = 10;
        if (args.length == 2) {
            try {
                seconds = Integer.parseInt(args[1]);
            } catch (NumberFormatException e) {
                seconds = -1;
            }
            if (seconds < 1 || seconds > 3600) {
                throw usage("seconds '" + args[1] + "': allowed 1..3600");
            }
        }
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        String waiting;
        while (true) {
            String hostsFailure = HostsSetup.failure();
            if (hostsFailure != null && Registry.all().isEmpty() && !configured()) {
                throw new IllegalStateException(hostsFailure);
            }
            waiting = notReady();
            if (waiting == null) {
                return list();
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("not ready after " + seconds + " s: " + waiting);
            }
            Thread.sleep(50);
        }
    }

    /** Whether the nd bundle forms link-local addresses: its {@code linkLocal}, true unless stored false. */
    private boolean ndFormsLinkLocal() throws IOException, InvalidSyntaxException {
        Configuration[] nd = configurationAdmin.listConfigurations("(service.pid=ipoib.nd)");
        Object linkLocal = nd == null || nd[0].getProperties() == null ? null : nd[0].getProperties().get("linkLocal");
        return linkLocal == null || !"false".equalsIgnoreCase(linkLocal.toString());
    }

    /** Whether any bridge is configured. */
    private boolean configured() throws IOException, InvalidSyntaxException {
        Configuration[] all = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + NetdevComponent.FACTORY_PID + ")");
        return all != null && all.length > 0;
    }

    /** The first configured bridge that is not ready, and why; null when all are. */
    private String notReady() throws IOException, InvalidSyntaxException {
        Configuration[] all = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + NetdevComponent.FACTORY_PID + ")");
        for (Configuration c : all == null ? new Configuration[0] : all) {
            Object link = c.getProperties() == null ? null : c.getProperties().get("link");
            NetdevComponent live = link == null ? null : Registry.get(link.toString());
            if (live == null) {
                if (ParkedDevices.all().containsKey(c.getPid())) {
                    return link + ": device kept with carrier off (interface " + link + " not running)";
                }
                String failure = link == null ? null : Registry.failure(link.toString());
                return link + ": no device" + (failure == null ? " yet" : " (" + failure + ")");
            }
            if (!live.stack().up()) {
                return link + ": interface not UP";
            }
            if (live.device().mtu() != live.stack().mtu()) {
                live.device().sync();
                if (live.device().mtu() != live.stack().mtu()) {
                    return link + ": device MTU " + live.device().mtu() + ", link MTU " + live.stack().mtu();
                }
            }
            boolean linkLocal = live.stack().resolvesIpv6() && ndFormsLinkLocal();
            String pending = live.device().pending(linkLocal);
            if (pending != null) {
                live.device().sync();
                pending = live.device().pending(linkLocal);
                if (pending != null) {
                    return link + ": " + pending;
                }
            }
        }
        return null;
    }

    private String del(String[] args) throws IOException, InvalidSyntaxException, InterruptedException {
        if (args.length != 2) {
            throw usage("del needs exactly one interface");
        }
        Configuration c = find(args[1]);
        if (c == null) {
            throw usage("'" + args[1] + "' is not bridged (ipoib:netdev lists the bridged interfaces)");
        }
        String pid = c.getPid();
        c.delete();
        long deadline = System.nanoTime() + WAIT_MILLIS * 1_000_000;
        while (present(args[1], pid) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        return present(args[1], pid) ? args[1] + ": still being removed" : args[1] + ": device removed";
    }

    /** Whether the device of an interface runs, is being taken back, or is kept for configuration {@code pid}. */
    private static boolean present(String link, String pid) {
        return Registry.get(link) != null || Registry.isStarting(link) || ParkedDevices.all().containsKey(pid);
    }

    private Configuration find(String link) throws IOException, InvalidSyntaxException {
        Configuration[] all = configurationAdmin.listConfigurations(
                "(&(service.factoryPid=" + NetdevComponent.FACTORY_PID + ")(link=" + link.replaceAll("[()*\\\\]", "") + "))");
        return all == null || all.length == 0 ? null : all[0];
    }

    /** The values {@code add} checks before writing the configuration. */
    private record Check(String link, String device, String netns) implements NetdevConfiguration {
        @Override
        public String link_target() {
            return "";
        }

        @Override
        public String[] addresses() {
            return new String[0];
        }

        @Override
        public boolean offload() {
            return true;
        }

        @Override
        public Class<? extends java.lang.annotation.Annotation> annotationType() {
            return NetdevConfiguration.class;
        }
    }
}
