package ipoib.host.internal;

import static ipoib.host.internal.CommandContext.usage;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.resolve.AddressBits;
import ipoib.runtime.JsonText;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * {@code ipoib:addr}: the interface addresses. Added addresses are {@code ipoib.address} factory
 * configurations, so that they stay; the command waits until the table shows the change.
 */
@Component(service = AddrCommand.class, property = {"osgi.command.scope=ipoib", "osgi.command.function=addr",
        "ipoib.command.completion=addr list <interface> --json",
        "ipoib.command.completion=addr <interface> --json",
        "ipoib.command.completion=addr add <interface> <address/prefix>",
        "ipoib.command.completion=addr del <interface> <address>",
        "ipoib.command.completion=addr await <seconds>"})
public final class AddrCommand {
    static final String USAGE = "ipoib:addr [list] [interface] [--json]\n"
            + "       ipoib:addr add <interface> <address>[/<prefix length>]\n"
            + "       ipoib:addr del <interface> <address>\n"
            + "       ipoib:addr await [seconds, default 10]";

    private final InterfaceAddresses addresses;
    private final ConfigurationAdmin configurationAdmin;
    private final CommandContext context;


    @Activate
    public AddrCommand(@Reference InterfaceAddresses addresses, @Reference ConfigurationAdmin configurationAdmin,
                       @Reference CommandContext context) {
        this.addresses = addresses;
        this.configurationAdmin = configurationAdmin;
        this.context = context;
    }

    @Descriptor("list, add or delete interface addresses (IPv4 and IPv6), or wait until none is TENTATIVE")
    public String addr(@Descriptor("[list] [interface] | add <interface> <address/prefix> | del <interface> <address> "
                       + "| await [seconds]; --json: the list as JSON") String... options)
            throws IOException, InvalidSyntaxException, InterruptedException {
        boolean json = JsonText.wanted(options);
        String[] args = JsonText.withoutFlag(options);
        String sub = args.length == 0 ? "list" : args[0];
        if (json && (sub.equals("await") || sub.equals("add") || sub.equals("del") || sub.equals("delete"))) {
            throw usage(USAGE, JsonText.FLAG + " goes with the list only");
        }
        switch (sub) {
            case "await" -> {
                atMost(args, 2);
                double seconds = args.length == 2 ? CommandContext.number(args[1], "await", 1, 3600, USAGE) : 10;
                return await(seconds);
            }
            case "add" -> {
                if (args.length != 3) {
                    throw usage(USAGE, "add needs an interface and an address");
                }
                return add(args[1], args[2]);
            }
            case "del", "delete" -> {
                if (args.length != 3) {
                    throw usage(USAGE, "del needs an interface and an address");
                }
                return delete(args[1], args[2]);
            }
            case "list" -> {
                atMost(args, 2);
                return json ? listJson(args.length == 2 ? args[1] : null) : list(args.length == 2 ? args[1] : null);
            }
            default -> {
                if (args.length == 1 && !sub.startsWith("-")) {
                    return json ? listJson(sub) : list(sub);
                }
                throw usage(USAGE, "unknown subcommand '" + sub + "'");
            }
        }
    }

    private static void atMost(String[] args, int n) {
        if (args.length > n) {
            throw usage(USAGE, "too many arguments");
        }
    }

    /** Waits until duplicate address detection has finished for every address of the UP interfaces. */
    private String await(double seconds) throws InterruptedException {
        long deadline = System.nanoTime() + (long) (seconds * 1e9);
        while (true) {
            List<InterfaceAddress> tentative = addresses.addresses(null).stream()
                    .filter(a -> a.state() == AddressState.TENTATIVE)
                    .filter(a -> {
                        IpoibLink l = context.link(a.link());
                        return l != null && l.state() == LinkState.UP;
                    }).toList();
            if (tentative.isEmpty()) {
                return list(null);
            }
            if (System.nanoTime() > deadline) {
                StringBuilder why = new StringBuilder("still TENTATIVE after " + CommandContext.trim(seconds)
                        + " s (duplicate address detection needs the nd and mcast bundles):");
                tentative.forEach(a -> why.append("\n  ").append(a.link()).append(' ').append(a.cidr()));
                throw new IllegalStateException(why.toString());
            }
            Thread.sleep(20);
        }
    }

    /** {@code ipoib:addr --json}: {"addresses": [...]}, by interface, as the list. */
    private String listJson(String only) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (String name : listed(only)) {
            for (InterfaceAddress a : addresses.addresses(name)) {
                records.add(JsonText.record("interface", name, "family", a.ipv6() ? "inet6" : "inet",
                        "address", AddressBits.text(a.address()), "prefixLength", a.prefixLength(), "state", a.state(),
                        "origin", a.origin().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        "validUntil", a.validUntil()));
            }
        }
        return JsonText.of(JsonText.record("addresses", records));
    }

    /** The interfaces and the names addresses are configured for, sorted; {@code only} alone when given. */
    private List<String> listed(String only) {
        if (only != null && context.link(only) == null && addresses.addresses(only).isEmpty()) {
            throw usage(USAGE, "no interface '" + only + "' (interfaces: " + context.knownLinks() + ")");
        }
        List<String> names = new ArrayList<>();
        context.links.forEach(l -> names.add(l.name()));
        addresses.addresses(null).forEach(a -> names.add(a.link()));
        return names.stream().distinct().sorted().filter(n -> only == null || only.equals(n)).toList();
    }

    private String list(String only) {
        StringBuilder out = new StringBuilder();
        listed(only).forEach(name -> {
            IpoibLink l = context.link(name);
            out.append(name).append(l == null ? " (no such interface)" : " (" + l.state() + ")").append('\n');
            for (InterfaceAddress a : addresses.addresses(name)) {
                out.append(String.format("    %-5s %-40s %-10s %s%s%n", a.ipv6() ? "inet6" : "inet", a.cidr(), a.state(),
                        a.origin().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                        a.validUntil() == null ? "" : " valid until " + a.validUntil()));
            }
        });
        return out.length() == 0 ? "no interfaces and no addresses" : out.toString();
    }

    private String add(String linkName, String cidr) throws IOException, InterruptedException {
        AddressTable.InterfaceAddressSpec spec;
        try {
            AddressTable.checkLink(linkName);
            spec = AddressTable.parseCidr(cidr);
        } catch (IllegalArgumentException e) {
            throw usage(USAGE, e.getMessage());
        }
        for (InterfaceAddress a : addresses.addresses(linkName)) {
            if (a.address().equals(spec.address())) {
                throw usage(USAGE, AddressBits.text(spec.address()) + " is already an address of " + linkName);
            }
        }
        // The component's rules (an address configured on another interface too), before anything is stored.
        String refusal = AddressConfigurator.refusal(null, java.util.Map.of("link", linkName,
                "address", AddressBits.text(spec.address()) + "/" + spec.prefixLength()));
        if (refusal != null) {
            throw usage(USAGE, refusal);
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
        String note = context.link(linkName) == null ? " (no interface " + linkName + " yet: used when it appears)" : "";
        return "added " + AddressBits.text(spec.address()) + "/" + spec.prefixLength() + " to " + linkName + note;
    }

    private String delete(String linkName, String text) throws IOException, InvalidSyntaxException {
        String plain = text.contains("/") ? text.substring(0, text.indexOf('/')) : text;
        InetAddress address = CommandContext.address(plain, USAGE);
        InterfaceAddress existing = addresses.addresses(linkName).stream().filter(a -> a.address().equals(address))
                .findFirst().orElseThrow(() -> usage(USAGE, AddressBits.text(address) + " is not an address of "
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
}
