package ipoib.link.internal.commands;

import static ipoib.link.internal.commands.LinkCommands.usage;

import ipoib.api.PKey;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.link.internal.LinkClaims;
import ipoib.link.internal.IpoibLinkComponent;
import ipoib.link.internal.LinkEngine;
import ipoib.runtime.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.Map;
import java.util.function.Supplier;

/**
 * What {@code ipoib:links}, {@code ipoib:paths} and {@code ipoib:stats} print: the interfaces
 * (and the configurations without one: refused, or not started yet), their path caches, their
 * counters and the resolvers' drops.
 */
final class LinkReport {
    private final List<IpoibLink> links;
    private final Map<String, NeighbourResolver> resolvers;
    private final Supplier<List<String>> notStarted;

    /** @param links the interfaces, live; @param resolvers the resolvers by family, live */
    LinkReport(List<IpoibLink> links, Map<String, NeighbourResolver> resolvers) {
        this(links, resolvers, List::of);
    }

    /**
     * @param notStarted the names of the interfaces configured whose component has not started
     *     (yet), neither running nor refused: at start, before configuration admin has handed the
     *     stored configurations to the components, that is every one
     */
    LinkReport(List<IpoibLink> links, Map<String, NeighbourResolver> resolvers, Supplier<List<String>> notStarted) {
        this.links = links;
        this.resolvers = resolvers;
        this.notStarted = notStarted;
    }

    /** The configured interfaces without one (read before the interfaces, then {@link #withoutRunning}). */
    private List<String> notStarted(String... names) {
        return notStarted.get().stream().filter(n -> names.length == 0 || n.equals(names[0])).toList();
    }

    /** Those of {@code notStarted} not among {@code running}: one that started since is listed once. */
    private static List<String> withoutRunning(List<String> notStarted, List<IpoibLink> running) {
        return notStarted.stream().filter(n -> running.stream().noneMatch(l -> l.name().equals(n))).toList();
    }

    private List<IpoibLink> sorted() {
        return LinkCommands.sorted(links);
    }

    String links(String... names) {
        if (names.length > 1) {
            throw usage("ipoib:links [interface]", "expected at most one interface name");
        }
        List<String> notStarted = notStarted(names);
        List<IpoibLink> shown = sorted().stream().filter(l -> names.length == 0 || l.name().equals(names[0])).toList();
        List<LinkClaims.Refusal> refusals = LinkClaims.INSTANCE.refusals().stream()
                .filter(r -> names.length == 0 || r.name().equals(names[0])).toList();
        if (names.length == 1 && shown.isEmpty() && refusals.isEmpty() && notStarted.isEmpty()) {
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
            if (link instanceof LinkEngine e) {
                out.append("    mode ").append(e.mode()).append('\n');
            }
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
        for (String name : withoutRunning(notStarted, shown)) {
            out.append(name).append(": NOT STARTED (configured, no interface yet; ipoib:await ").append(name)
                    .append(" waits for it, scr:info ").append(IpoibLinkComponent.FACTORY_PID)
                    .append(" says what it waits for)\n");
        }
        return out.length() == 0 ? "no IPoIB interfaces (create one with ipoib:create)" : out.toString();
    }

    /** {@code ipoib:links --json}: {"links": [...], "refused": [...]}, the fields of the text listing. */
    String linksJson(String... names) {
        if (names.length > 1) {
            throw usage("ipoib:links [interface] [--json]", "expected at most one interface name");
        }
        List<String> notStarted = notStarted(names);
        List<IpoibLink> shown = sorted().stream().filter(l -> names.length == 0 || l.name().equals(names[0])).toList();
        List<LinkClaims.Refusal> refusals = LinkClaims.INSTANCE.refusals().stream()
                .filter(r -> names.length == 0 || r.name().equals(names[0])).toList();
        if (names.length == 1 && shown.isEmpty() && refusals.isEmpty() && notStarted.isEmpty()) {
            throw usage("ipoib:links [interface] [--json]", "no interface '" + names[0] + "'");
        }
        List<Map<String, Object>> records = new ArrayList<>();
        for (IpoibLink link : shown) {
            LinkEngine engine = link instanceof LinkEngine e ? e : null;
            PKey inUse = engine == null ? null : engine.pkeyInUse();
            boolean up = link.address() != null;
            records.add(JsonText.record("name", link.name(), "state", link.state(), "reason", link.stateReason(),
                    "refusedUpdate", LinkClaims.INSTANCE.refusedUpdate(link.name()),
                    "device", engine == null ? null : engine.config().device(),
                    "port", engine == null ? null : engine.config().port(),
                    "provider", engine == null ? null : engine.providerName(),
                    "pkey", link.pkey(), "pkeyInUse", inUse, "broadcastGid", link.broadcastGid(),
                    "mode", engine == null ? null : engine.mode(),
                    "qpn", up ? link.qpn() : null, "gid", up ? link.gid() : null, "linkAddress", link.address(),
                    "mtu", up ? link.mtu() : null, "qkey", up ? link.qkey() : null,
                    "serviceLevel", up ? link.serviceLevel() : null));
        }
        List<Map<String, Object>> refused = refusals.stream()
                .map(r -> JsonText.record("name", r.name(), "reason", r.reason())).toList();
        List<Map<String, Object>> pending = withoutRunning(notStarted, shown).stream()
                .map(n -> JsonText.record("name", n)).toList();
        return JsonText.of(JsonText.record("links", records, "refused", refused, "notStarted", pending));
    }

    /** {@code ipoib:paths --json} of the interfaces named (at most one), or of all. */
    String pathsJson(String... names) {
        return JsonText.of(pathsListing(selected("ipoib:paths [interface] [--json]", names)));
    }

    /**
     * The {@code ipoib:paths --json} object of these interfaces: {"paths": [per interface: name,
     * state, paths [...], counters {...}]}; also the console's path tables ({@link PathsListing}).
     */
    static Map<String, Object> pathsListing(List<IpoibLink> links) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (IpoibLink link : links) {
            List<Map<String, Object>> paths = new ArrayList<>();
            link.paths().forEach((gid, r) -> paths.add(JsonText.record("destinationGid", gid,
                    "lid", r.destinationLid(), "serviceLevel", r.serviceLevel(), "mtu", r.mtu().bytes(), "rate", r.rate())));
            records.add(JsonText.record("name", link.name(), "state", link.state(), "paths", paths,
                    "counters", link instanceof LinkEngine engine ? engine.pathCounters() : Map.of()));
        }
        return JsonText.record("paths", records);
    }

    /** {@code ipoib:stats --json}: {"stats": [per interface], "resolvers": [per family]}; every counter, zero or not. */
    String statsJson(String... names) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (IpoibLink link : selected("ipoib:stats [interface] [--json]", names)) {
            LinkCounters c = link.counters();
            long qkeyViolations = qkeyViolations(link);
            records.add(JsonText.record("name", link.name(), "state", link.state(),
                    "rxPackets", c.rxPackets(), "rxBytes", c.rxBytes(), "rxMulticast", c.rxMulticast(),
                    "rxErrors", c.rxErrors(), "txPackets", c.txPackets(), "txBytes", c.txBytes(),
                    "txMulticast", c.txMulticast(), "txErrors", c.txErrors(), "txDropped", c.txDropped(),
                    "handlerErrors", c.handlerErrors(),
                    "portQkeyViolations", qkeyViolations < 0 ? null : qkeyViolations,
                    "drops", link.dropCounters()));
        }
        List<Map<String, Object>> families = new ArrayList<>();
        resolvers.forEach((family, r) -> {
            Map<String, Long> drops = new TreeMap<>();
            r.counters().forEach((k, v) -> {
                if (k.startsWith("dropped_")) {
                    drops.put(k, v);
                }
            });
            families.add(JsonText.record("family", family, "drops", drops));
        });
        return JsonText.of(JsonText.record("stats", records, "resolvers", families));
    }

    /** The interfaces {@code names} selects (all, or the one named); none is a usage error. */
    private List<IpoibLink> selected(String usage, String... names) {
        if (names.length > 1) {
            throw usage(usage, "expected at most one interface name");
        }
        List<IpoibLink> shown = sorted().stream().filter(l -> names.length == 0 || l.name().equals(names[0])).toList();
        if (shown.isEmpty()) {
            throw usage(usage, names.length == 1 ? "no interface '" + names[0] + "'" : "no interfaces");
        }
        return shown;
    }

    String paths(String... names) {
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

    String stats(String... names) {
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
            long noBuffer = receiveBufferDrops(link);
            if (noBuffer > 0) {
                // Dropped by the HCA below the interface: no receive buffer was posted (the receive
                // thread fell behind), counted for the whole port.
                out.append(String.format("    port %s/%d rx_dropped_no_receive_buffer %d%n",
                        link.port().device().name(), link.port().number(), noBuffer));
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

    private static long receiveBufferDrops(IpoibLink link) {
        try {
            return link.port().receiveBufferDrops();
        } catch (RuntimeException portGone) {
            return -1;
        }
    }

    private static long qkeyViolations(IpoibLink link) {
        try {
            return link.port().qkeyViolations();
        } catch (RuntimeException portGone) {
            return -1; // the port went away (provider restarting): nothing to show
        }
    }

}
