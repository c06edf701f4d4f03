package ipoib.host.internal;

import static ipoib.host.internal.CommandContext.usage;

import ipoib.api.LinkAddress;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.JsonText;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** {@code ipoib:neigh}: the neighbour tables of ARP and ND (list, flush, permanent entries). */
@Component(service = NeighCommand.class, property = {"osgi.command.scope=ipoib", "osgi.command.function=neigh",
        "ipoib.command.completion=neigh list <interface> --json",
        "ipoib.command.completion=neigh <interface> --json",
        "ipoib.command.completion=neigh flush <interface>",
        "ipoib.command.completion=neigh add <interface> <address> <link-layer-address>",
        "ipoib.command.completion=neigh del <interface> <address>"})
public final class NeighCommand {
    static final String USAGE = "ipoib:neigh [list] [interface] [--json]\n"
            + "       ipoib:neigh flush [interface]\n"
            + "       ipoib:neigh add <interface> <address> <link-layer address>\n"
            + "       ipoib:neigh del <interface> <address>";

    private final CommandContext context;

    @Activate
    public NeighCommand(@Reference CommandContext context) {
        this.context = context;
    }

    @Descriptor("show, flush, add or delete neighbour entries (ARP and ND): address, link-layer address, LID, SL, "
            + "state, age, queued frames")
    public String neigh(@Descriptor("[list] [interface] | flush [interface] | add <interface> <address> <lladdr> | "
            + "del <interface> <address>; --json: the list as JSON") String... options) {
        boolean json = JsonText.wanted(options);
        String[] args = JsonText.withoutFlag(options);
        String sub = args.length == 0 ? "list" : args[0];
        if (json && List.of("flush", "add", "del", "delete").contains(sub)) {
            throw usage(USAGE, JsonText.FLAG + " goes with the list only");
        }
        return switch (sub) {
            case "list", "show" -> {
                atMost(args, 2);
                String only = args.length == 2 ? context.requireLink(args[1], USAGE).name() : null;
                yield json ? listJson(only) : list(only);
            }
            case "flush" -> {
                atMost(args, 2);
                yield flush(args.length == 2 ? context.requireLink(args[1], USAGE).name() : null);
            }
            case "add" -> {
                if (args.length != 4) {
                    throw usage(USAGE, "add needs an interface, an address and a link-layer address");
                }
                yield add(args[1], args[2], args[3]);
            }
            case "del", "delete" -> {
                if (args.length != 3) {
                    throw usage(USAGE, "del needs an interface and an address");
                }
                yield delete(args[1], args[2]);
            }
            default -> {
                if (args.length == 1) {
                    String only = context.requireLink(sub, USAGE).name();
                    yield json ? listJson(only) : list(only);
                }
                throw usage(USAGE, "unknown subcommand '" + sub + "'");
            }
        };
    }

    private static void atMost(String[] args, int n) {
        if (args.length > n) {
            throw usage(USAGE, "too many arguments");
        }
    }

    private String flush(String only) {
        int n = 0;
        for (Map.Entry<NeighbourResolver, String> e : context.resolvers) {
            n += e.getKey().flush(only);
        }
        return "flushed " + n + (n == 1 ? " entry" : " entries") + (only == null ? "" : " of " + only);
    }

    private String add(String linkName, String addressText, String linkAddressText) {
        String name = context.requireLink(linkName, USAGE).name();
        InetAddress a = CommandContext.address(addressText, USAGE);
        LinkAddress ll;
        try {
            ll = LinkAddress.parse(linkAddressText);
        } catch (IllegalArgumentException e) {
            throw usage(USAGE, e.getMessage());
        }
        NeighbourResolver r = context.requireResolver(a instanceof Inet6Address);
        try {
            r.addPermanent(name, a, ll);
        } catch (IllegalArgumentException e) {
            throw usage(USAGE, e.getMessage());
        }
        return "added permanent entry " + AddressBits.text(a) + " -> " + ll + " on " + name
                + "\nnote: the peer's QPN changes when its interface is reset (RFC 4391 §9.4); "
                + "a permanent entry must then be updated by hand";
    }

    private String delete(String linkName, String addressText) {
        String name = context.requireLink(linkName, USAGE).name();
        InetAddress a = CommandContext.address(addressText, USAGE);
        if (!context.requireResolver(a instanceof Inet6Address).remove(name, a)) {
            throw usage(USAGE, "no entry for " + AddressBits.text(a) + " on " + name);
        }
        return "deleted " + AddressBits.text(a) + " on " + name;
    }

    /** The entries of both families, by interface, IPv4 first, by address. */
    private List<NeighbourEntry> entries(String only) {
        List<NeighbourEntry> entries = new ArrayList<>();
        for (Map.Entry<NeighbourResolver, String> e : context.resolvers) {
            entries.addAll(e.getKey().neighbours(only));
        }
        entries.sort(Comparator.comparing(NeighbourEntry::link).thenComparing(e -> e.address() instanceof Inet6Address)
                .thenComparing(e -> AddressBits.text(e.address())));
        return entries;
    }

    /** {@code ipoib:neigh --json}: {"neighbours": [...]}, the columns of the table. */
    private String listJson(String only) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (NeighbourEntry e : entries(only)) {
            records.add(JsonText.record("address", AddressBits.text(e.address()), "interface", e.link(),
                    "linkAddress", e.linkAddress(), "lid", e.lid(),
                    "serviceLevel", e.serviceLevel() < 0 ? null : e.serviceLevel(), "state", e.state(),
                    "ageMillis", e.age().toMillis(), "queued", e.queuedFrames(), "connected", "up".equals(connection(e)),
                    "permanent", e.permanent()));
        }
        return JsonText.of(JsonText.record("neighbours", records));
    }

    private String list(String only) {
        List<NeighbourEntry> entries = entries(only);
        if (entries.isEmpty()) {
            return "no neighbour entries" + (only == null ? "" : " on " + only);
        }
        int addressWidth = "ADDRESS".length();
        int linkWidth = "INTERFACE".length();
        for (NeighbourEntry e : entries) {
            addressWidth = Math.max(addressWidth, AddressBits.text(e.address()).length());
            linkWidth = Math.max(linkWidth, e.link().length());
        }
        String format = "%-" + addressWidth + "s  %-" + linkWidth + "s  %-59s  %-6s  %-2s  %-12s  %6s  %6s  %-4s  %s%n";
        StringBuilder out = new StringBuilder(String.format(format, "ADDRESS", "INTERFACE", "LINK-LAYER ADDRESS",
                "LID", "SL", "STATE", "AGE", "QUEUED", "CM", "FLAGS"));
        for (NeighbourEntry e : entries) {
            out.append(String.format(format, AddressBits.text(e.address()), e.link(),
                    e.linkAddress() == null ? "-" : e.linkAddress(), e.lid() == null ? "-" : e.lid(),
                    e.serviceLevel() < 0 ? "-" : Integer.toString(e.serviceLevel()), e.state(), age(e.age()),
                    Integer.toString(e.queuedFrames()), connection(e), e.permanent() ? "PERMANENT" : "")
                    .stripTrailing()).append('\n');
        }
        return out.toString();
    }

    /**
     * The CM column: {@code up} when frames to the neighbour go over an established reliable
     * connection (connected mode), {@code -} otherwise (datagram).
     */
    private String connection(NeighbourEntry e) {
        for (ipoib.api.link.IpoibLink l : context.links) {
            if (l.name().equals(e.link())) {
                return e.linkAddress() != null && l.connectionUp(e.linkAddress()) ? "up" : "-";
            }
        }
        return "-";
    }

    private static String age(Duration d) {
        long ms = d.toMillis();
        return ms < 10_000 ? String.format(Locale.ROOT, "%.1fs", ms / 1000.0) : (ms / 1000) + "s";
    }
}
