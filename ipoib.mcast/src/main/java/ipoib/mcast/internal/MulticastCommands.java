package ipoib.mcast.internal;

import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.runtime.JsonText;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/** Gogo commands of the multicast bundle (scope {@code ipoib}). */
@Component(service = MulticastCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=mcast",
        "osgi.command.function=join",
        "osgi.command.function=leave",
        "osgi.command.function=router",
        "ipoib.command.completion=mcast <interface> --json",
        "ipoib.command.completion=join <interface> <ip-group>",
        "ipoib.command.completion=leave <interface> <ip-group>",
        "ipoib.command.completion=router <interface> on|off"})
public final class MulticastCommands {
    /** How long join and leave wait for the SA before saying the operation is still under way. */
    private static final long WAIT_SECONDS = 10;

    private final MulticastService multicast;

    @Activate
    public MulticastCommands(@Reference MulticastService multicast) {
        this.multicast = multicast;
    }

    @Descriptor("list the multicast groups of every interface, or of one: MGID, IP group, MLID, join state, "
            + "why the port is in the group, listeners, queued frames, join state machine; router mode; counters")
    public String mcast(@Descriptor("[interface] [--json]") String... options) {
        String usage = "ipoib:mcast [interface] [--json]";
        boolean json = JsonText.wanted(options);
        String[] args = JsonText.withoutFlag(options);
        if (args.length > 1) {
            throw usage(usage, "expected at most one interface name");
        }
        String link = args.length == 1 ? args[0] : null;
        List<GroupInfo> groups;
        try {
            groups = multicast.groups(link);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        if (json) {
            return json(link, groups);
        }
        StringBuilder out = new StringBuilder();
        String current = null;
        for (GroupInfo g : groups) {
            if (!g.link().equals(current)) {
                current = g.link();
                out.append(current).append(": router mode ").append(multicast.isRouterMode(current) ? "on" : "off")
                        .append('\n');
            }
            out.append(String.format("    %-40s %-18s MLID %-6s %-18s %-9s listeners %d queued %d  %s%n", g.mgid(),
                    g.group() == null ? "-" : Destination.text(g.group()), g.mlid() == null ? "-" : g.mlid(),
                    g.joinState() == null ? "not joined" : g.joinState(), g.origin(), g.listeners(), g.queuedFrames(),
                    g.state()));
        }
        for (String name : link != null ? List.of(link) : linksOf(groups)) {
            StringBuilder counters = new StringBuilder();
            for (Map.Entry<String, Long> c : multicast.counters(name).entrySet()) {
                if (c.getValue() != 0) {
                    counters.append(' ').append(c.getKey()).append(' ').append(c.getValue());
                }
            }
            if (counters.length() > 0) {
                out.append(name).append(" counters:").append(counters).append('\n');
            }
        }
        return out.length() == 0 ? "no multicast groups (no interface is UP)" : out.toString();
    }

    /**
     * {@code ipoib:mcast --json}: {"groups": [...], "interfaces": [name, routerMode, counters]}, the
     * fields of the text listing, every counter.
     */
    private String json(String link, List<GroupInfo> groups) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (GroupInfo g : groups) {
            records.add(JsonText.record("interface", g.link(), "mgid", g.mgid(),
                    "ipGroup", g.group() == null ? null : Destination.text(g.group()), "mlid", g.mlid(),
                    "joinState", g.joinState(), "origin", g.origin(), "listeners", g.listeners(),
                    "queued", g.queuedFrames(), "state", g.state()));
        }
        List<Map<String, Object>> interfaces = new ArrayList<>();
        for (String name : link != null ? List.of(link) : linksOf(groups)) {
            interfaces.add(JsonText.record("name", name, "routerMode", multicast.isRouterMode(name),
                    "counters", multicast.counters(name)));
        }
        return JsonText.of(JsonText.record("groups", records, "interfaces", interfaces));
    }

    private static List<String> linksOf(List<GroupInfo> groups) {
        return groups.stream().map(GroupInfo::link).distinct().toList();
    }

    @Descriptor("a local listener joins an IP multicast group on an interface: the first makes the port a FullMember "
            + "of the IB group, creating it with the broadcast group's parameters when needed")
    public String join(@Descriptor("<interface> <ip-group>") String... args) throws InterruptedException {
        String usage = "ipoib:join <interface> <ip-group>";
        InetAddress group = parse(args, usage);
        CompletionStage<GroupInfo> joined;
        try {
            joined = multicast.joinListener(args[0], group);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            GroupInfo g = joined.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "joined " + Destination.text(group) + " on " + args[0] + ": " + g.mgid() + " MLID " + g.mlid() + " as "
                    + g.joinState() + " (" + g.listeners() + " listeners)";
        } catch (ExecutionException e) {
            throw failure(e, usage);
        } catch (TimeoutException e) {
            return "join of " + Destination.text(group) + " on " + args[0] + " is still under way after " + WAIT_SECONDS
                    + " s: " + stateOf(args[0], group) + "; the listener stays and the join goes on (ipoib:mcast "
                    + args[0] + " shows it, ipoib:leave gives up)";
        }
    }

    /** The join state machine of a listener's group, as {@code ipoib:mcast} shows it. */
    private String stateOf(String link, InetAddress group) {
        try {
            return multicast.groups(link).stream().filter(g -> group.equals(g.group())).map(GroupInfo::state)
                    .findFirst().orElse("no such group any more");
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }

    @Descriptor("a local listener leaves an IP multicast group; the last one makes the port leave the IB group")
    public String leave(@Descriptor("<interface> <ip-group>") String... args) throws InterruptedException {
        String usage = "ipoib:leave <interface> <ip-group>";
        InetAddress group = parse(args, usage);
        CompletionStage<Void> left;
        try {
            left = multicast.leaveListener(args[0], group);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        try {
            left.toCompletableFuture().get(WAIT_SECONDS, TimeUnit.SECONDS);
            return "left " + Destination.text(group) + " on " + args[0];
        } catch (ExecutionException e) {
            throw failure(e, usage);
        } catch (TimeoutException e) {
            return "leave of " + Destination.text(group) + " on " + args[0] + " is still under way after " + WAIT_SECONDS
                    + " s";
        }
    }

    @Descriptor("router mode (RFC 4391 §11): NonMember joins of every IPoIB group of the interface, so that it receives "
            + "groups nobody joined here; without on|off, shows the mode")
    public String router(@Descriptor("<interface> [on|off]") String... args) {
        String usage = "ipoib:router <interface> on|off";
        if (args.length < 1 || args.length > 2) {
            throw usage(usage, args.length == 0 ? "an interface is required" : "too many arguments");
        }
        try {
            if (args.length == 1) {
                return args[0] + ": router mode " + (multicast.isRouterMode(args[0]) ? "on" : "off");
            }
            boolean on = switch (args[1]) {
                case "on" -> true;
                case "off" -> false;
                default -> throw usage(usage, "'" + args[1] + "' is neither on nor off");
            };
            multicast.setRouterMode(args[0], on);
            return args[0] + ": router mode " + (on ? "on" : "off");
        } catch (IllegalArgumentException e) {
            if (e.getMessage() != null && e.getMessage().contains("\nusage: ")) {
                throw e;
            }
            throw usage(usage, e.getMessage());
        }
    }

    /** The IP group of {@code <interface> <ip-group>}: a literal address only, never a name lookup. */
    private static InetAddress parse(String[] args, String usage) {
        if (args.length != 2) {
            throw usage(usage, args.length < 2 ? "an interface and an IP multicast group are required"
                    : "too many arguments");
        }
        InetAddress group;
        try {
            group = InetAddress.ofLiteral(args[1]);
        } catch (IllegalArgumentException e) {
            throw usage(usage, "'" + args[1] + "' is not an IP address literal");
        }
        if (!group.isMulticastAddress()) {
            throw usage(usage, args[1] + " is not an IP multicast group (224.0.0.0/4 or ff00::/8)");
        }
        return group;
    }

    private static RuntimeException failure(ExecutionException e, String usage) {
        Throwable cause = e.getCause();
        if (cause instanceof IllegalArgumentException) {
            return usage(usage, cause.getMessage());
        }
        return new IllegalStateException(String.valueOf(cause.getMessage()));
    }

    static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }
}
