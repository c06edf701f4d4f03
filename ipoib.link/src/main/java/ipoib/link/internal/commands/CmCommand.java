package ipoib.link.internal.commands;

import static ipoib.link.internal.commands.LinkCommands.usage;

import ipoib.api.link.IpoibLink;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.cm.CmLinkConnection;
import ipoib.link.internal.cm.ConnectedMode;
import ipoib.runtime.JsonText;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code ipoib:cm}: the connections of connected-mode interfaces, as Linux's debug files and
 * {@code ipoib_cm} counters show them: per connection its direction and state, the peer's UD QPN,
 * LID and GID, both RC QPNs, the MTU, the idle time and the counters; per interface the service
 * ID it listens on and the set-up outcomes; per port the CM agent's message counters.
 */
public final class CmCommand {
    private CmCommand() {}

    /** {@code ipoib:cm [interface]} over the interfaces, sorted by name. */
    static String cm(List<IpoibLink> links, String... names) {
        if (names.length > 1) {
            throw usage("ipoib:cm [interface]", "expected at most one interface name");
        }
        StringBuilder out = new StringBuilder();
        boolean found = false;
        for (IpoibLink link : links) {
            if (names.length == 1 && !link.name().equals(names[0])) {
                continue;
            }
            found = true;
            if (link instanceof LinkEngine engine) {
                out.append(describe(engine));
            }
        }
        if (!found) {
            throw usage("ipoib:cm [interface]", names.length == 1 ? "no interface '" + names[0] + "'" : "no interfaces");
        }
        return out.toString();
    }

    /** {@code ipoib:cm --json} of the interfaces named (at most one), or of all. */
    static String cmJson(List<IpoibLink> links, String... names) {
        if (names.length > 1) {
            throw usage("ipoib:cm [interface] [--json]", "expected at most one interface name");
        }
        List<IpoibLink> shown = links.stream().filter(l -> names.length == 0 || l.name().equals(names[0])).toList();
        if (shown.isEmpty()) {
            throw usage("ipoib:cm [interface] [--json]",
                    names.length == 1 ? "no interface '" + names[0] + "'" : "no interfaces");
        }
        return JsonText.of(listing(shown));
    }

    /**
     * The {@code ipoib:cm --json} object of these interfaces: {"cm": [per interface: name, mode,
     * and in connected mode serviceId, its set-up counters, connections [...] and the port CM
     * agent's counters]}; also the console's CM tables ({@link CmListing}).
     */
    static Map<String, Object> listing(List<IpoibLink> links) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (IpoibLink link : links) {
            Map<String, Object> record = JsonText.record("name", link.name(), "mode", null);
            if (link instanceof LinkEngine engine) {
                record.put("mode", engine.mode());
                ConnectedMode cm = engine.connectedMode();
                if (cm != null) {
                    long now = engine.control().clock().nanoTime();
                    record.putAll(JsonText.record("serviceId", String.format("0x%016x", cm.serviceId()),
                            "established", cm.established.sum(), "rejected", cm.rejected.sum(),
                            "failures", cm.failures.sum(), "reaped", cm.reaped.sum(),
                            "sentOverUdWhileFailed", cm.sentOverUd.sum(), "icmpTooBig", cm.tooBigNotices.sum(),
                            "connections", cm.connections().stream().map(c -> c.record(now)).toList(),
                            "portCm", cm.agentCounters()));
                }
            }
            records.add(record);
        }
        return JsonText.record("cm", records);
    }

    public static String describe(LinkEngine engine) {
        StringBuilder out = new StringBuilder(engine.name()).append(": ").append(engine.mode()).append('\n');
        ConnectedMode cm = engine.connectedMode();
        if (cm == null) {
            return out.toString();
        }
        out.append(String.format("    listening on service ID 0x%016x  established %d  rejected %d  failures %d"
                        + "  reaped %d  sent over UD while failed %d  ICMP too-big %d%n", cm.serviceId(),
                cm.established.sum(), cm.rejected.sum(), cm.failures.sum(), cm.reaped.sum(), cm.sentOverUd.sum(),
                cm.tooBigNotices.sum()));
        long now = engine.control().clock().nanoTime();
        for (CmLinkConnection c : cm.connections()) {
            out.append("    ").append(c.describe(now)).append('\n');
        }
        Map<String, Long> agent = cm.agentCounters();
        if (!agent.isEmpty()) {
            StringBuilder line = new StringBuilder("    port CM:");
            agent.forEach((k, v) -> line.append(' ').append(k).append(' ').append(v));
            out.append(line).append('\n');
        }
        return out.toString();
    }
}
