package ipoib.link.internal;

import ipoib.runtime.Numbers;

import ipoib.api.PKey;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.resolve.NeighbourResolver;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.framework.InvalidSyntaxException;

/** Gogo commands of the link bundle (scope {@code ipoib}). */
@Component(service = LinkCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=links",
        "osgi.command.function=stats",
        "osgi.command.function=create",
        "osgi.command.function=delete",
        "osgi.command.function=await",
        "osgi.command.function=capture",
        "osgi.command.function=paths"})
public final class LinkCommands {

    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    /** The resolvers, for their drop counters in ipoib:stats (issue 18 item 7: every drop visible). */
    private final Map<String, NeighbourResolver> resolvers = new java.util.concurrent.ConcurrentSkipListMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        resolvers.put(String.valueOf(properties.get(NeighbourResolver.FAMILY_PROPERTY)), resolver);
    }

    void removeResolver(NeighbourResolver resolver) {
        resolvers.values().removeIf(r -> r == resolver);
    }

    private List<IpoibLink> sorted() {
        List<IpoibLink> out = new ArrayList<>(links);
        out.sort(Comparator.comparing(IpoibLink::name));
        return out;
    }

    @Descriptor("list the IPoIB interfaces (or one): state and reason, HCA/port, P_Key, QPN, GID, link address, MTU, Q_Key, broadcast-GID, provider")
    public String links(@Descriptor("interface name (optional)") String... names) {
        if (names.length > 1) {
            throw usage("ipoib:links [interface]", "expected at most one interface name");
        }
        List<IpoibLink> shown = sorted().stream().filter(l -> names.length == 0 || l.name().equals(names[0])).toList();
        List<LinkClaims.Refusal> refusals = LinkClaims.INSTANCE.refusals().stream()
                .filter(r -> names.length == 0 || r.name().equals(names[0])).toList();
        if (names.length == 1 && shown.isEmpty() && refusals.isEmpty()) {
            throw usage("ipoib:links [interface]", "no interface '" + names[0] + "'");
        }
        StringBuilder out = new StringBuilder();
        for (IpoibLink link : shown) {
            out.append(link.name()).append(": ").append(link.state()).append(" (").append(link.stateReason()).append(")\n");
            String refusedUpdate = LinkClaims.INSTANCE.refusedUpdate(link.name());
            if (refusedUpdate != null) {
                out.append("    configuration update refused: ").append(refusedUpdate)
                        .append("; the previous configuration stays in force\n");
            }
            LinkEngine engine = link instanceof LinkEngine e ? e : null;
            if (engine != null) {
                out.append("    device ").append(engine.config().device()).append(" port ").append(engine.config().port())
                        .append("  provider ").append(engine.providerName()).append('\n');
            }
            out.append("    pkey ").append(link.pkey());
            PKey inUse = engine == null ? null : engine.pkeyInUse();
            if (inUse != null && inUse.value() != link.pkey().value()) {
                // e.g. a port that is only a limited member: the P_Key table holds 0x7fff, not 0xffff.
                out.append(" (in use ").append(inUse).append(')');
            }
            out.append("  broadcast ").append(link.broadcastGid()).append('\n');
            if (link.address() != null) {
                out.append("    qpn ").append(link.qpn()).append("  gid ").append(link.gid()).append('\n');
                out.append("    lladdr ").append(link.address()).append('\n');
                out.append("    mtu ").append(link.mtu()).append("  qkey ").append(link.qkey()).append("  sl ")
                        .append(link.serviceLevel()).append('\n');
            }
        }
        for (LinkClaims.Refusal r : refusals) {
            out.append(r.name()).append(": REFUSED (").append(r.reason()).append(")\n");
        }
        return out.length() == 0 ? "no IPoIB interfaces (create one with ipoib:create)" : out.toString();
    }

    @Descriptor("show the path cache of every interface, or of one: destination GID, LID, SL, MTU, rate, and the cache's counters")
    public String paths(@Descriptor("interface name (optional)") String... names) {
        if (names.length > 1) {
            throw usage("ipoib:paths [interface]", "expected at most one interface name");
        }
        StringBuilder out = new StringBuilder();
        boolean found = false;
        for (IpoibLink link : sorted()) {
            if (names.length == 1 && !link.name().equals(names[0])) {
                continue;
            }
            found = true;
            out.append(link.name()).append(" (").append(link.state()).append(")\n");
            link.paths().forEach((gid, r) -> out.append("    ").append(gid).append("  lid ").append(r.destinationLid())
                    .append("  sl ").append(r.serviceLevel()).append("  mtu ").append(r.mtu()).append("  rate ")
                    .append(r.rate()).append('\n'));
            if (link instanceof LinkEngine engine) {
                StringBuilder figures = new StringBuilder("   ");
                engine.pathCounters().forEach((k, v) -> figures.append(' ').append(k).append(' ').append(v));
                out.append(figures).append('\n');
            }
        }
        if (!found) {
            throw usage("ipoib:paths [interface]", names.length == 1 ? "no interface '" + names[0] + "'" : "no interfaces");
        }
        return out.toString();
    }

    @Descriptor("show the counters of every interface, or of one")
    public String stats(@Descriptor("interface name (optional)") String... names) {
        if (names.length > 1) {
            throw usage("ipoib:stats [interface]", "expected at most one interface name");
        }
        StringBuilder out = new StringBuilder();
        for (IpoibLink link : sorted()) {
            if (names.length == 1 && !link.name().equals(names[0])) {
                continue;
            }
            LinkCounters c = link.counters();
            out.append(link.name()).append(" (").append(link.state()).append(")\n");
            out.append(String.format("    rx packets %d bytes %d multicast %d errors %d%n", c.rxPackets(), c.rxBytes(),
                    c.rxMulticast(), c.rxErrors()));
            out.append(String.format("    tx packets %d bytes %d multicast %d errors %d dropped %d%n", c.txPackets(),
                    c.txBytes(), c.txMulticast(), c.txErrors(), c.txDropped()));
            out.append(String.format("    handler errors %d%n", c.handlerErrors()));
            long qkeyViolations = qkeyViolations(link);
            if (qkeyViolations > 0) {
                // Dropped by the HCA below the interface (IBA 10.2.4), counted for the whole port.
                out.append(String.format("    port %s/%d qkey_violations %d%n", link.port().device().name(),
                        link.port().number(), qkeyViolations));
            }
            for (Map.Entry<String, Long> d : link.dropCounters().entrySet()) {
                if (d.getValue() != 0) {
                    out.append("    ").append(d.getKey()).append(' ').append(d.getValue()).append('\n');
                }
            }
        }
        if (out.length() == 0) {
            throw usage("ipoib:stats [interface]", names.length == 1 ? "no interface '" + names[0] + "'" : "no interfaces");
        }
        // Frames the resolvers dropped before they reached any interface (queue full, table full,
        // resolution failed, no source address...): counted per family, for every interface.
        resolvers.forEach((family, r) -> {
            StringBuilder drops = new StringBuilder();
            long total = 0;
            for (Map.Entry<String, Long> c : r.counters().entrySet()) {
                if (c.getKey().startsWith("dropped_") && c.getValue() != 0) {
                    drops.append(' ').append(c.getKey()).append(' ').append(c.getValue());
                    total += c.getValue();
                }
            }
            out.append(family).append(" resolver (all interfaces): dropped ").append(total).append(drops).append('\n');
        });
        return out.toString();
    }

    private static long qkeyViolations(IpoibLink link) {
        try {
            return link.port().qkeyViolations();
        } catch (RuntimeException portGone) {
            return -1; // the port went away (provider restarting): nothing to show
        }
    }

    @Descriptor("create an IPoIB interface at runtime")
    public String create(@Descriptor("<device> <port 1..254> <P_Key> [name, default ibX_Y_Z]") String... args)
            throws IOException {
        String usage = "ipoib:create <device> <port> <pkey> [name]";
        if (args.length < 3 || args.length > 4) {
            throw usage(usage, args.length < 3 ? "device, port and P_Key are required" : "too many arguments");
        }
        String device = args[0];
        String port = args[1];
        String pkey = args[2];
        String[] name = java.util.Arrays.copyOfRange(args, 3, args.length);
        int portNumber;
        try {
            portNumber = (int) Numbers.parse("port", port, 1, 254);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        PKey key;
        try {
            key = PKey.parse(pkey);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        String linkName = name.length == 1 ? name[0] : LinkConfig.defaultName(LinkConfig.deviceIndex(device), portNumber, key);
        for (IpoibLink l : links) {
            if (l.name().equals(linkName)) {
                throw usage(usage, "an interface named '" + linkName + "' exists");
            }
        }
        String conflict = LinkClaims.INSTANCE.conflict(null, linkName, device, portNumber, key);
        if (conflict != null) {
            throw usage(usage, conflict);
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", linkName);
        props.put("device", device);
        props.put("port", portNumber);
        props.put("pkey", key.toString());
        // Checked like the component will, so that a bad value is refused here, not only in the log.
        try {
            LinkConfig.checkPort(portNumber);
            LinkConfig.checkName(linkName);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        Configuration configuration = configurationAdmin.getFactoryConfiguration(IpoibLinkComponent.FACTORY_PID, linkName, "?");
        configuration.update(props);
        return "created " + linkName + " on " + device + " port " + portNumber + " P_Key " + key;
    }

    @Descriptor("delete an IPoIB interface")
    public String delete(@Descriptor("<interface>") String... args) throws IOException, InvalidSyntaxException {
        if (args.length != 1) {
            throw usage("ipoib:delete <interface>", "expected one interface name");
        }
        String name = args[0];
        Configuration[] configurations = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + IpoibLinkComponent.FACTORY_PID + ")");
        if (configurations != null) {
            for (Configuration c : configurations) {
                Object n = c.getProperties().get("name");
                IpoibLink live = links.stream().filter(l -> l.name().equals(name)).findFirst().orElse(null);
                boolean named = name.equals(n);
                boolean derived = (n == null || n.toString().isBlank()) && live != null
                        && live.pkey().toString().equals(String.valueOf(c.getProperties().get("pkey")));
                if (named || derived) {
                    c.delete();
                    return "deleted " + name;
                }
            }
        }
        throw usage("ipoib:delete <interface>", "no configured interface '" + name + "'");
    }

    @Descriptor("wait until every interface (or the named one) is UP; fails after the timeout")
    public String await(@Descriptor("interface name or 'all' (optional, default all)") String... args)
            throws InterruptedException {
        String usage = "ipoib:await [interface|all] [timeout seconds, default 10]";
        if (args.length > 2) {
            throw usage(usage, "too many arguments");
        }
        String which = args.length > 0 ? args[0] : "all";
        long seconds = 10;
        if (args.length == 2) {
            try {
                seconds = Numbers.parse("timeout (seconds)", args[1], 1, 3600);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        while (true) {
            List<IpoibLink> selected = sorted().stream().filter(l -> which.equals("all") || l.name().equals(which)).toList();
            // 'all' includes the interfaces configured (ipoib:create) whose component is not there yet.
            List<String> pending = which.equals("all") ? configuredWithoutLink() : List.of();
            if (selected.isEmpty() && !which.equals("all")) {
                if (System.nanoTime() > deadline) {
                    throw usage(usage, "no interface '" + which + "'");
                }
            } else if (!selected.isEmpty() && pending.isEmpty()
                    && selected.stream().allMatch(l -> l.state() == ipoib.api.link.LinkState.UP)) {
                return selected.stream().map(l -> l.name() + " UP").reduce((a, b) -> a + "\n" + b).orElse("");
            }
            if (System.nanoTime() > deadline) {
                if (selected.isEmpty() && pending.isEmpty()) {
                    throw new IllegalStateException("no IPoIB interfaces within " + seconds
                            + " s (create one with ipoib:create)");
                }
                StringBuilder why = new StringBuilder("not UP within " + seconds + " s:");
                for (String name : pending) {
                    why.append("\n  ").append(name).append(" configured, but no interface yet (see scr:info "
                            + IpoibLinkComponent.FACTORY_PID + ")");
                }
                for (IpoibLink l : selected) {
                    if (l.state() != ipoib.api.link.LinkState.UP) {
                        why.append("\n  ").append(l.name()).append(' ').append(l.state()).append(" (")
                                .append(l.stateReason()).append(')');
                    }
                }
                throw new IllegalStateException(why.toString());
            }
            Thread.sleep(20);
        }
    }

    /** Names of ipoib.link configurations that name their interface and have no interface yet. */
    private List<String> configuredWithoutLink() {
        Configuration[] configurations;
        try {
            configurations = configurationAdmin.listConfigurations(
                    "(service.factoryPid=" + IpoibLinkComponent.FACTORY_PID + ")");
        } catch (IOException | InvalidSyntaxException e) {
            return List.of();
        }
        if (configurations == null) {
            return List.of();
        }
        List<String> pending = new ArrayList<>();
        for (Configuration c : configurations) {
            Object name = c.getProperties() == null ? null : c.getProperties().get("name");
            // A refused configuration (ipoib:links shows why) is not waited for: it cannot come up.
            boolean refused = LinkClaims.INSTANCE.refusals().stream().anyMatch(r -> r.name().equals(name));
            if (name != null && !refused && links.stream().noneMatch(l -> l.name().equals(name))) {
                pending.add(name.toString());
            }
        }
        pending.sort(null);
        return pending;
    }

    @Descriptor("capture an interface's frames, both directions, to a pcapng file (LINKTYPE_IPOIB 242 with the "
            + "40-octet pseudo-header): ipoib:capture <interface> <file> [count, default 1000] | "
            + "ipoib:capture <interface> stop | ipoib:capture (status)")
    public String capture(@Descriptor("<interface> <file> [count] | <interface> stop | nothing for the status")
                          String... args) throws IOException {
        String usage = "ipoib:capture <interface> <file> [count] | ipoib:capture <interface> stop | ipoib:capture";
        if (args.length == 0) {
            StringBuilder out = new StringBuilder();
            for (IpoibLink link : sorted()) {
                if (link instanceof LinkEngine engine && engine.captureSummary() != null) {
                    out.append(engine.captureSummary()).append('\n');
                }
            }
            return out.length() == 0 ? "no captures" : out.toString();
        }
        if (args.length > 3) {
            throw usage(usage, "too many arguments");
        }
        IpoibLink link = links.stream().filter(l -> l.name().equals(args[0])).findFirst().orElse(null);
        if (!(link instanceof LinkEngine engine)) {
            throw usage(usage, "no interface '" + args[0] + "'");
        }
        if (args.length == 1) {
            throw usage(usage, "a file (or 'stop') is required after the interface");
        }
        if ("stop".equals(args[1])) {
            if (args.length > 2) {
                throw usage(usage, "too many arguments");
            }
            String summary = engine.stopCapture();
            if (summary == null) {
                throw usage(usage, "no capture of " + engine.name() + " was started");
            }
            return summary;
        }
        long limit = 1000;
        if (args.length == 3) {
            try {
                limit = Numbers.parse("count", args[2], 1, 10_000_000);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        java.nio.file.Path file;
        try {
            file = java.nio.file.Path.of(args[1]).toAbsolutePath();
        } catch (java.nio.file.InvalidPathException e) {
            throw usage(usage, "file '" + args[1] + "' is not a valid path: " + e.getMessage());
        }
        try {
            engine.startCapture(file, limit);
        } catch (IllegalStateException e) {
            throw usage(usage, e.getMessage() + "; stop it first");
        } catch (IOException e) {
            throw usage(usage, "cannot write '" + file + "': " + e.getMessage());
        }
        return "capturing up to " + limit + " frames of " + engine.name() + " to " + file
                + " (ipoib:capture " + engine.name() + " stop ends it)";
    }

    static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }
}
