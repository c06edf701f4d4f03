package ipoib.host.internal;

import ipoib.api.LinkAddress;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.host.HostRoute;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.IpHost;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NeighbourEntry;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.resolve.PathInfo;
import ipoib.api.resolve.PathInfoAnswer;
import java.io.IOException;
import java.io.PrintStream;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.felix.service.command.CommandSession;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** Gogo commands of the host layer (scope {@code ipoib}): addresses, neighbours, path information, ping. */
@Component(service = HostCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=addr",
        "osgi.command.function=neigh",
        "osgi.command.function=resolve",
        "osgi.command.function=ping"})
public final class HostCommands {

    static final String ADDR_USAGE = "ipoib:addr [list] [interface]\n"
            + "       ipoib:addr add <interface> <address>/<prefix length>\n"
            + "       ipoib:addr del <interface> <address>\n"
            + "       ipoib:addr await [seconds, default 10]";
    static final String NEIGH_USAGE = "ipoib:neigh [list] [interface]\n"
            + "       ipoib:neigh flush [interface]\n"
            + "       ipoib:neigh add <interface> <address> <link-layer address>\n"
            + "       ipoib:neigh del <interface> <address>";
    static final String RESOLVE_USAGE = "ipoib:resolve [-I interface] [-W seconds] <address>[%interface]";
    static final String PING_USAGE = "ipoib:ping [-I interface] [-c count] [-i interval s] [-s size] [-W timeout s] "
            + "<address>[%interface]";

    @Reference
    InterfaceAddresses addresses;
    @Reference
    IpHost host;
    @Reference
    ConfigurationAdmin configurationAdmin;

    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();
    private final List<Map.Entry<NeighbourResolver, String>> resolvers = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        resolvers.add(Map.entry(resolver, String.valueOf(properties.get(NeighbourResolver.FAMILY_PROPERTY))));
    }

    void removeResolver(NeighbourResolver resolver) {
        resolvers.removeIf(e -> e.getKey() == resolver);
    }

    static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }

    private IpoibLink link(String name) {
        for (IpoibLink l : links) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        return null;
    }

    private String knownLinks() {
        List<String> names = links.stream().map(IpoibLink::name).sorted().toList();
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    private IpoibLink requireLink(String name, String usage) {
        IpoibLink l = link(name);
        if (l == null) {
            throw usage(usage, "no interface '" + name + "' (interfaces: " + knownLinks() + ")");
        }
        return l;
    }

    private NeighbourResolver resolver(boolean v6) {
        String family = v6 ? NeighbourResolver.IPV6 : NeighbourResolver.IPV4;
        NeighbourResolver found = null;
        for (Map.Entry<NeighbourResolver, String> e : resolvers) {
            if (family.equals(e.getValue())) {
                found = e.getKey();
            }
        }
        return found;
    }

    private static InetAddress address(String text, String usage) {
        try {
            return AddressTable.parseAddress(text, "expected an IPv4 or IPv6 address, e.g. 10.0.0.2 or fe80::1", text);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
    }

    /** A destination with an optional {@code %interface} (IPv6 link-local scope), as ping takes it. */
    private record Target(InetAddress address, String link) {}

    private Target target(String text, String linkOption, String usage) {
        String link = linkOption;
        String a = text;
        int percent = text.indexOf('%');
        if (percent >= 0) {
            a = text.substring(0, percent);
            String scope = text.substring(percent + 1);
            if (link != null && !link.equals(scope)) {
                throw usage(usage, "-I " + link + " and %" + scope + " name different interfaces");
            }
            link = scope;
        }
        if (link != null) {
            requireLink(link, usage);
        }
        return new Target(address(a, usage), link);
    }

    // ---- ipoib:addr ----------------------------------------------------------------------------------

    @Descriptor("list, add or delete interface addresses (IPv4 and IPv6), or wait until none is TENTATIVE")
    public String addr(@Descriptor("[list] [interface] | add <interface> <address/prefix> | del <interface> <address> "
                       + "| await [seconds]") String... args)
            throws IOException, InvalidSyntaxException, InterruptedException {
        String sub = args.length == 0 ? "list" : args[0];
        switch (sub) {
            case "await" -> {
                if (args.length > 2) {
                    throw usage(ADDR_USAGE, "too many arguments");
                }
                double seconds = args.length == 2 ? number(args[1], "await", 1, 3600, ADDR_USAGE) : 10;
                return awaitAddresses(seconds);
            }
            case "add" -> {
                if (args.length != 3) {
                    throw usage(ADDR_USAGE, "add needs an interface and an address");
                }
                return addAddress(args[1], args[2]);
            }
            case "del", "delete" -> {
                if (args.length != 3) {
                    throw usage(ADDR_USAGE, "del needs an interface and an address");
                }
                return deleteAddress(args[1], args[2]);
            }
            case "list" -> {
                if (args.length > 2) {
                    throw usage(ADDR_USAGE, "too many arguments");
                }
                return listAddresses(args.length == 2 ? args[1] : null);
            }
            default -> {
                if (args.length == 1 && !sub.startsWith("-")) {
                    return listAddresses(sub);
                }
                throw usage(ADDR_USAGE, "unknown subcommand '" + sub + "'");
            }
        }
    }

    /** Waits until duplicate address detection has finished for every address of the UP interfaces. */
    private String awaitAddresses(double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (true) {
            List<InterfaceAddress> tentative = addresses.addresses(null).stream()
                    .filter(a -> a.state() == ipoib.api.host.AddressState.TENTATIVE)
                    .filter(a -> {
                        IpoibLink l = link(a.link());
                        return l != null && l.state() == ipoib.api.link.LinkState.UP;
                    }).toList();
            if (tentative.isEmpty()) {
                return listAddresses(null);
            }
            if (System.nanoTime() > deadline) {
                StringBuilder why = new StringBuilder("still TENTATIVE after " + trim(seconds)
                        + " s (duplicate address detection needs the nd and mcast bundles):");
                tentative.forEach(a -> why.append("\n  ").append(a.link()).append(' ').append(a.cidr()));
                throw new IllegalStateException(why.toString());
            }
            Thread.sleep(20);
        }
    }

    private String listAddresses(String only) {
        if (only != null && link(only) == null && addresses.addresses(only).isEmpty()) {
            throw usage(ADDR_USAGE, "no interface '" + only + "' (interfaces: " + knownLinks() + ")");
        }
        List<String> names = new ArrayList<>();
        links.forEach(l -> names.add(l.name()));
        addresses.addresses(null).forEach(a -> names.add(a.link()));
        StringBuilder out = new StringBuilder();
        names.stream().distinct().sorted().filter(n -> only == null || only.equals(n)).forEach(name -> {
            IpoibLink l = link(name);
            out.append(name).append(l == null ? " (no such interface)" : " (" + l.state() + ")").append('\n');
            for (InterfaceAddress a : addresses.addresses(name)) {
                out.append(String.format("    %-5s %-40s %-10s %s%s%n", a.ipv6() ? "inet6" : "inet", a.cidr(), a.state(),
                        a.origin().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        a.validUntil() == null ? "" : " valid until " + a.validUntil()));
            }
        });
        return out.length() == 0 ? "no interfaces and no addresses" : out.toString();
    }

    private String addAddress(String linkName, String cidr) throws IOException, InterruptedException {
        AddressTable.InterfaceAddressSpec spec;
        try {
            AddressTable.checkLink(linkName);
            spec = AddressTable.parseCidr(cidr);
        } catch (IllegalArgumentException e) {
            throw usage(ADDR_USAGE, e.getMessage());
        }
        for (InterfaceAddress a : addresses.addresses(linkName)) {
            if (a.address().equals(spec.address())) {
                throw usage(ADDR_USAGE, AddressBits.text(spec.address()) + " is already an address of " + linkName);
            }
        }
        Configuration c = configurationAdmin.getFactoryConfiguration(AddressConfigurator.FACTORY_PID,
                linkName + "-" + AddressBits.text(spec.address()).replace(':', '.').replace('%', '.'), "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("link", linkName);
        props.put("address", AddressBits.text(spec.address()) + "/" + spec.prefixLength());
        c.update(props);
        // The configuration reaches the component asynchronously: wait for it, so that a script can go on.
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (addresses.addresses(linkName).stream().noneMatch(a -> a.address().equals(spec.address()))) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the address configuration was stored but " + linkName
                        + " does not show the address after 5 s (see the log)");
            }
            Thread.sleep(10);
        }
        String note = link(linkName) == null ? " (no interface " + linkName + " yet: used when it appears)" : "";
        return "added " + AddressBits.text(spec.address()) + "/" + spec.prefixLength() + " to " + linkName + note;
    }

    private String deleteAddress(String linkName, String text) throws IOException, InvalidSyntaxException {
        String plain = text.contains("/") ? text.substring(0, text.indexOf('/')) : text;
        InetAddress address = address(plain, ADDR_USAGE);
        InterfaceAddress existing = addresses.addresses(linkName).stream().filter(a -> a.address().equals(address))
                .findFirst().orElseThrow(() -> usage(ADDR_USAGE, AddressBits.text(address) + " is not an address of "
                        + linkName));
        if (existing.origin() == AddressOrigin.CONFIGURED) {
            Configuration[] configurations = configurationAdmin.listConfigurations(
                    "(&(service.factoryPid=" + AddressConfigurator.FACTORY_PID + ")(link=" + linkName + "))");
            if (configurations != null) {
                for (Configuration c : configurations) {
                    Object value = c.getProperties().get("address");
                    try {
                        if (value != null && AddressTable.parseCidr(value.toString()).address().equals(address)) {
                            c.delete();
                        }
                    } catch (IllegalArgumentException unparsable) {
                        // Not this one.
                    }
                }
            }
        }
        addresses.remove(linkName, address);
        return "deleted " + AddressBits.text(address) + " from " + linkName;
    }

    // ---- ipoib:neigh ---------------------------------------------------------------------------------

    @Descriptor("show, flush, add or delete neighbour entries (ARP and ND): address, link-layer address, LID, SL, "
            + "state, age, queued frames")
    public String neigh(@Descriptor("[list] [interface] | flush [interface] | add <interface> <address> <lladdr> | "
            + "del <interface> <address>") String... args) {
        String sub = args.length == 0 ? "list" : args[0];
        switch (sub) {
            case "list", "show" -> {
                if (args.length > 2) {
                    throw usage(NEIGH_USAGE, "too many arguments");
                }
                return listNeighbours(args.length == 2 ? requireLink(args[1], NEIGH_USAGE).name() : null);
            }
            case "flush" -> {
                if (args.length > 2) {
                    throw usage(NEIGH_USAGE, "too many arguments");
                }
                String only = args.length == 2 ? requireLink(args[1], NEIGH_USAGE).name() : null;
                int n = 0;
                for (Map.Entry<NeighbourResolver, String> e : resolvers) {
                    n += e.getKey().flush(only);
                }
                return "flushed " + n + " entries" + (only == null ? "" : " of " + only);
            }
            case "add" -> {
                if (args.length != 4) {
                    throw usage(NEIGH_USAGE, "add needs an interface, an address and a link-layer address");
                }
                String name = requireLink(args[1], NEIGH_USAGE).name();
                InetAddress a = address(args[2], NEIGH_USAGE);
                LinkAddress ll;
                try {
                    ll = LinkAddress.parse(args[3]);
                } catch (IllegalArgumentException e) {
                    throw usage(NEIGH_USAGE, e.getMessage());
                }
                NeighbourResolver r = requireResolver(a instanceof Inet6Address, NEIGH_USAGE);
                try {
                    r.addPermanent(name, a, ll);
                } catch (IllegalArgumentException e) {
                    throw usage(NEIGH_USAGE, e.getMessage());
                }
                return "added permanent entry " + AddressBits.text(a) + " -> " + ll + " on " + name
                        + "\nnote: the peer's QPN changes when its interface is reset (RFC 4391 §9.4); "
                        + "a permanent entry must then be updated by hand";
            }
            case "del", "delete" -> {
                if (args.length != 3) {
                    throw usage(NEIGH_USAGE, "del needs an interface and an address");
                }
                String name = requireLink(args[1], NEIGH_USAGE).name();
                InetAddress a = address(args[2], NEIGH_USAGE);
                if (!requireResolver(a instanceof Inet6Address, NEIGH_USAGE).remove(name, a)) {
                    throw usage(NEIGH_USAGE, "no entry for " + AddressBits.text(a) + " on " + name);
                }
                return "deleted " + AddressBits.text(a) + " on " + name;
            }
            default -> {
                if (args.length == 1) {
                    return listNeighbours(requireLink(sub, NEIGH_USAGE).name());
                }
                throw usage(NEIGH_USAGE, "unknown subcommand '" + sub + "'");
            }
        }
    }

    private NeighbourResolver requireResolver(boolean v6, String usage) {
        NeighbourResolver r = resolver(v6);
        if (r == null) {
            throw new IllegalStateException("no " + (v6 ? "IPv6 (ipoib.nd)" : "IPv4 (ipoib.arp)")
                    + " resolver is running");
        }
        return r;
    }

    private String listNeighbours(String only) {
        List<NeighbourEntry> entries = new ArrayList<>();
        for (Map.Entry<NeighbourResolver, String> e : resolvers) {
            entries.addAll(e.getKey().neighbours(only));
        }
        entries.sort(Comparator.comparing(NeighbourEntry::link).thenComparing(e -> e.address() instanceof Inet6Address)
                .thenComparing(e -> AddressBits.text(e.address())));
        if (entries.isEmpty()) {
            return "no neighbour entries" + (only == null ? "" : " on " + only);
        }
        int addressWidth = "ADDRESS".length();
        int linkWidth = "INTERFACE".length();
        for (NeighbourEntry e : entries) {
            addressWidth = Math.max(addressWidth, AddressBits.text(e.address()).length());
            linkWidth = Math.max(linkWidth, e.link().length());
        }
        String format = "%-" + addressWidth + "s  %-" + linkWidth + "s  %-59s  %-6s  %-2s  %-12s  %6s  %6s  %s%n";
        StringBuilder out = new StringBuilder(String.format(format, "ADDRESS", "INTERFACE", "LINK-LAYER ADDRESS",
                "LID", "SL", "STATE", "AGE", "QUEUED", "FLAGS"));
        for (NeighbourEntry e : entries) {
            out.append(String.format(format, AddressBits.text(e.address()), e.link(),
                    e.linkAddress() == null ? "-" : e.linkAddress(), e.lid() == null ? "-" : e.lid(),
                    e.serviceLevel() < 0 ? "-" : Integer.toString(e.serviceLevel()), e.state(), age(e.age()),
                    Integer.toString(e.queuedFrames()), e.permanent() ? "PERMANENT" : "").stripTrailing()).append('\n');
        }
        return out.toString();
    }

    private static String age(Duration d) {
        long ms = d.toMillis();
        return ms < 10_000 ? String.format(Locale.ROOT, "%.1fs", ms / 1000.0) : (ms / 1000) + "s";
    }

    // ---- ipoib:resolve -------------------------------------------------------------------------------

    @Descriptor("path information of a destination (the SIOCGIPOIBPATH query): DGID/SGID, DLID/SLID, flow label, "
            + "P_Key, SL, MTU, rate, packet lifetime, hop limit, traffic class; waits while it resolves")
    public String resolve(@Descriptor("[-I interface] [-W seconds] <address>[%interface]") String... args)
            throws InterruptedException {
        String linkOption = null;
        double wait = 5;
        String dest = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-I" -> linkOption = value(args, ++i, "-I", RESOLVE_USAGE);
                case "-W" -> wait = number(value(args, ++i, "-W", RESOLVE_USAGE), "-W", 0.05, 600, RESOLVE_USAGE);
                default -> {
                    if (args[i].startsWith("-") || dest != null) {
                        throw usage(RESOLVE_USAGE, "unexpected argument '" + args[i] + "'");
                    }
                    dest = args[i];
                }
            }
        }
        if (dest == null) {
            throw usage(RESOLVE_USAGE, "no destination address");
        }
        Target t = target(dest, linkOption, RESOLVE_USAGE);
        String linkName = t.link();
        if (linkName == null) {
            linkName = host.route(null, t.address()).map(HostRoute::link).orElseThrow(() -> usage(RESOLVE_USAGE,
                    "no interface has an address on the way to " + AddressBits.text(t.address()) + "; name one with -I"));
        }
        NeighbourResolver r = requireResolver(t.address() instanceof Inet6Address, RESOLVE_USAGE);
        PathInfoAnswer answer = r.pathInfo(linkName, t.address());
        String head = AddressBits.text(t.address()) + " on " + linkName;
        if (answer instanceof PathInfoAnswer.NoSuchNode n) {
            throw new IllegalStateException(head + ": no such node: " + n.reason());
        }
        if (answer instanceof PathInfoAnswer.Ready ready) {
            return head + ": resolved\n" + describe(ready.path());
        }
        CompletableFuture<PathInfo> pending = ((PathInfoAnswer.Pending) answer).path().toCompletableFuture();
        try {
            return head + ": resolved after waiting\n" + describe(pending.get((long) (wait * 1000), TimeUnit.MILLISECONDS));
        } catch (ExecutionException e) {
            throw new IllegalStateException(head + ": no such node: " + e.getCause().getMessage());
        } catch (TimeoutException e) {
            throw new IllegalStateException(head + ": not resolved within " + wait + " s (still pending)");
        }
    }

    static String describe(PathInfo p) {
        return String.format("    dgid %s  sgid %s%n    dlid %s  slid %s  sl %d  flow label 0x%05x  pkey %s%n"
                        + "    mtu %s  rate %s  packet lifetime %d  hop limit %d  traffic class %d%n",
                p.destinationGid(), p.sourceGid(), p.destinationLid(), p.sourceLid(), p.serviceLevel(), p.flowLabel(),
                p.pkey(), p.mtu(), p.rate(), p.packetLifetime(), p.hopLimit(), p.trafficClass());
    }

    // ---- ipoib:ping ----------------------------------------------------------------------------------

    private static String value(String[] args, int i, String option, String usage) {
        if (i >= args.length) {
            throw usage(usage, "option " + option + " needs a value");
        }
        return args[i];
    }

    private static double number(String text, String option, double min, double max, String usage) {
        double v;
        try {
            v = Double.parseDouble(text);
        } catch (NumberFormatException e) {
            throw usage(usage, "option " + option + " value '" + text + "' is not a number");
        }
        if (!(v >= min && v <= max)) {
            throw usage(usage, "option " + option + " value " + text + " outside " + trim(min) + ".." + trim(max));
        }
        return v;
    }

    private static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    @Descriptor("send ICMP/ICMPv6 echo requests and print each reply's time and a loss summary; fails when no reply comes")
    public String ping(CommandSession session,
                       @Descriptor("[-I interface] [-c count] [-i interval s] [-s size] [-W timeout s] <address>[%interface]")
                       String... args) throws InterruptedException {
        String linkOption = null;
        int count = 4;
        double interval = 1;
        int size = 56;
        double timeout = 2;
        String dest = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "-I" -> linkOption = value(args, ++i, "-I", PING_USAGE);
                case "-c" -> count = (int) number(value(args, ++i, "-c", PING_USAGE), "-c", 1, 100_000, PING_USAGE);
                case "-i" -> interval = number(value(args, ++i, "-i", PING_USAGE), "-i", 0.01, 60, PING_USAGE);
                case "-s" -> size = (int) number(value(args, ++i, "-s", PING_USAGE), "-s", 0, 65_507, PING_USAGE);
                case "-W" -> timeout = number(value(args, ++i, "-W", PING_USAGE), "-W", 0.05, 60, PING_USAGE);
                default -> {
                    if (args[i].startsWith("-") || dest != null) {
                        throw usage(PING_USAGE, "unexpected argument '" + args[i] + "'");
                    }
                    dest = args[i];
                }
            }
        }
        if (dest == null) {
            throw usage(PING_USAGE, "no destination address");
        }
        Target t = target(dest, linkOption, PING_USAGE);
        boolean v6 = t.address() instanceof Inet6Address;
        HostRoute route = host.route(t.link(), t.address()).orElseThrow(() -> new IllegalStateException(
                "connect: no route to " + AddressBits.text(t.address())
                        + (t.link() == null ? ": no UP interface has an address whose prefix holds it"
                        : " via " + t.link() + ": it has no usable " + (v6 ? "IPv6" : "IPv4") + " address")));
        int header = (v6 ? 40 : 20) + 8;
        if (header + size > route.mtu()) {
            throw usage(PING_USAGE, "-s " + size + ": a packet of " + (header + size) + " octets does not fit the MTU "
                    + route.mtu() + " of " + route.link() + " (at most -s " + (route.mtu() - header)
                    + "; fragmentation is not supported)");
        }
        PrintStream out = session == null ? System.out : session.getConsole();
        String name = AddressBits.text(t.address());
        out.printf("PING %s from %s %s: %d(%d) bytes of data.%n", name, AddressBits.text(route.source()), route.link(),
                size, header + size);
        out.flush();
        int identifier = ThreadLocalRandom.current().nextInt(0x10000);
        int received = 0;
        int errors = 0;
        double min = Double.MAX_VALUE;
        double max = 0;
        double sum = 0;
        double sumSquares = 0;
        long start = System.nanoTime();
        for (int seq = 1; seq <= count; seq++) {
            long sent = System.nanoTime();
            CompletableFuture<EchoReply> reply = host.echo(route.link(), t.address(), identifier, seq & 0xFFFF, size,
                    Duration.ofMillis((long) (timeout * 1000))).toCompletableFuture();
            try {
                EchoReply r = reply.get((long) (timeout * 1000) + 1000, TimeUnit.MILLISECONDS);
                received++;
                double ms = r.roundTrip().toNanos() / 1e6;
                min = Math.min(min, ms);
                max = Math.max(max, ms);
                sum += ms;
                sumSquares += ms * ms;
                out.printf(Locale.ROOT, "%d bytes from %s: icmp_seq=%d ttl=%d time=%.3f ms%n", r.length() + 8,
                        AddressBits.text(r.from()), seq, r.ttl(), ms);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof HostException h) {
                    errors++;
                    out.printf("From %s icmp_seq=%d Destination Host Unreachable: %s%n", AddressBits.text(route.source()),
                            seq, h.getMessage());
                }
                // A timeout is silent, as with the system ping.
            } catch (TimeoutException e) {
                reply.cancel(false);
            }
            out.flush();
            long next = sent + (long) (interval * 1e9);
            long rest = next - System.nanoTime();
            if (seq < count && rest > 0) {
                TimeUnit.NANOSECONDS.sleep(rest);
            }
        }
        long elapsed = (System.nanoTime() - start) / 1_000_000;
        int loss = (int) Math.round(100.0 * (count - received) / count);
        StringBuilder summary = new StringBuilder();
        summary.append(String.format("%n--- %s ping statistics ---%n", name));
        summary.append(String.format("%d packets transmitted, %d received, %s%d%% packet loss, time %dms%n", count,
                received, errors > 0 ? "+" + errors + " errors, " : "", loss, elapsed));
        if (received > 0) {
            double avg = sum / received;
            double mdev = Math.sqrt(Math.max(0, sumSquares / received - avg * avg));
            summary.append(String.format(Locale.ROOT, "rtt min/avg/max/mdev = %.3f/%.3f/%.3f/%.3f ms%n", min, avg, max,
                    mdev));
        }
        if (received == 0) {
            out.print(summary);
            out.flush();
            throw new IllegalStateException("no reply from " + name + ": " + count + " packets transmitted, 0 received, "
                    + "100% packet loss");
        }
        return summary.toString().stripTrailing();
    }
}
