package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The stack's state as the IPoIB page, its JSON ({@code ipoib.json}) and the status dump show it:
 * interfaces, counters, neighbours and multicast groups, one {@link Table} each, read from the
 * services at the moment of the call.
 */
final class StackTables {
    private StackTables() {}

    /** The tables by JSON key, in page order. */
    static Map<String, Table> of(Collection<IpoibLink> links, Collection<NeighbourResolver> resolvers,
                                 MulticastService multicast) {
        List<IpoibLink> sorted = new ArrayList<>(links);
        sorted.sort(Comparator.comparing(IpoibLink::name));
        Map<String, Table> out = new LinkedHashMap<>();
        put(out, links(sorted));
        put(out, counters(sorted));
        put(out, neighbours(resolvers));
        put(out, groups(multicast));
        return out;
    }

    private static void put(Map<String, Table> out, Table t) {
        out.put(t.key(), t);
    }

    static Table links(List<IpoibLink> sorted) {
        List<List<Object>> rows = new ArrayList<>();
        for (IpoibLink l : sorted) {
            rows.add(List.of(l.name(), l.state(), l.stateReason(), l.port() == null ? "-" : l.port().device().name()
                    + "/" + l.port().number(), l.pkey(), l.qpn() == null ? "-" : l.qpn(),
                    l.address() == null ? "-" : l.address(), l.mtu()));
        }
        return new Table("ipoib-links", "links", Table.columns("interface", "Interface", "state", "State", "reason", "Reason",
                "port", "Port", "pkey", "P_Key", "qpn", "QPN", "address", "Link-layer address", "mtu", "MTU"), rows,
                "no interfaces");
    }

    static Table counters(List<IpoibLink> sorted) {
        List<List<Object>> rows = new ArrayList<>();
        for (IpoibLink l : sorted) {
            LinkCounters c = l.counters();
            Map<String, Long> drops = new LinkedHashMap<>();
            l.dropCounters().forEach((k, v) -> {
                if (v != 0) {
                    drops.put(k, v);
                }
            });
            rows.add(List.of(l.name(), c.rxPackets(), c.rxBytes(), c.rxMulticast(), c.txPackets(), c.txBytes(),
                    c.txMulticast(), c.rxErrors() + c.txErrors(), drops));
        }
        return new Table("ipoib-counters", "counters", Table.columns("interface", "Interface", "rxPackets", "RX packets",
                "rxBytes", "RX bytes", "rxMulticast", "RX multicast", "txPackets", "TX packets", "txBytes", "TX bytes",
                "txMulticast", "TX multicast", "errors", "Errors", "drops", "Drops"), rows, "no interfaces");
    }

    static Table neighbours(Collection<NeighbourResolver> resolvers) {
        List<List<Object>> rows = new ArrayList<>();
        for (NeighbourResolver r : resolvers) {
            for (NeighbourEntry n : r.neighbours(null)) {
                rows.add(List.of(n.link(), n.address().getHostAddress(), n.state(), n.lid() == null ? "-" : n.lid(),
                        n.linkAddress() == null ? "-" : n.linkAddress().qpn(),
                        n.age() == null ? "-" : n.age().toMillis() + " ms", n.queuedFrames(),
                        n.permanent(), n.linkAddress() == null ? "-" : n.linkAddress()));
            }
        }
        rows.sort(Comparator.comparing((List<Object> row) -> row.get(0).toString()).thenComparing(row -> row.get(1).toString()));
        return new Table("ipoib-neighbours", "neighbours", Table.columns("interface", "Interface", "address", "Address",
                "state", "State", "lid", "LID", "qpn", "QPN", "age", "Age", "queued", "Queued", "permanent", "Permanent",
                "linkAddress", "Link-layer address"), rows, "no neighbours");
    }

    static Table groups(MulticastService m) {
        List<List<Object>> rows = new ArrayList<>();
        if (m != null) {
            for (GroupInfo g : m.groups(null)) {
                rows.add(List.of(g.link(), g.mgid(), g.group() == null ? "-" : g.group().getHostAddress(),
                        g.mlid() == null ? "-" : g.mlid(), g.joinState() == null ? "not joined" : g.joinState(),
                        g.origin(), g.listeners(), g.queuedFrames(), g.state()));
            }
        }
        return new Table("ipoib-groups", "groups", Table.columns("interface", "Interface", "mgid", "MGID", "group",
                "IP group", "mlid", "MLID", "joinState", "Join state", "origin", "Why", "listeners", "Listeners",
                "queued", "Queued", "state", "State machine"), rows,
                m == null ? "multicast manager not running" : "no groups");
    }
}
