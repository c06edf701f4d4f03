package ipoib.host.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.NeighbourResolver;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.framework.Constants;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * What the host's shell commands share: the links, bridges and resolvers it tracks, and the checks
 * of arguments that end in a usage message. A delayed component, as each command is: made only
 * when Gogo asks for a command, so that without Gogo nothing of the shell is loaded.
 */
@Component(service = CommandContext.class)
public final class CommandContext {
    final List<IpoibLink> links = new CopyOnWriteArrayList<>();
    final List<Map.Entry<NeighbourResolver, String>> resolvers = new CopyOnWriteArrayList<>();
    /**
     * Links bridged to a Linux device (the netdev bundle's frame handlers): per registration, the
     * link's name, the device's and its namespace's ("" for the appliance's own).
     */
    final List<Bridged> bridged = new CopyOnWriteArrayList<>();

    /** A link the netdev bundle exports as {@code device} in namespace {@code netns} ("" for none). */
    record Bridged(Object registration, String link, String device, String netns) {}

    public CommandContext() {
        // Tests fill the lists themselves.
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    /** A link bridged to a network device (the kernel owns the link's addresses there: ipoib:ping refuses). */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(" + FrameHandler.BRIDGE_PROPERTY + "=*)")
    void addBridge(FrameHandler bridge, Map<String, Object> properties) {
        if (properties.get(FrameHandler.LINK_PROPERTY) instanceof String link) {
            Object netns = properties.get(FrameHandler.BRIDGE_NETNS_PROPERTY);
            bridged.add(new Bridged(properties.get(Constants.SERVICE_ID), link,
                    String.valueOf(properties.get(FrameHandler.BRIDGE_PROPERTY)), netns == null ? "" : netns.toString()));
        }
    }

    void removeBridge(FrameHandler bridge, Map<String, Object> properties) {
        Object id = properties.get(Constants.SERVICE_ID);
        bridged.removeIf(b -> b.registration().equals(id));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        resolvers.add(Map.entry(resolver, String.valueOf(properties.get(NeighbourResolver.FAMILY_PROPERTY))));
    }

    void removeResolver(NeighbourResolver resolver) {
        resolvers.removeIf(e -> e.getKey() == resolver);
    }

    /** The bridge of a link, or null when the link is not bridged. */
    Bridged bridge(String link) {
        for (Bridged b : bridged) {
            if (b.link().equals(link)) {
                return b;
            }
        }
        return null;
    }

    static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }

    IpoibLink link(String name) {
        for (IpoibLink l : links) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        return null;
    }

    String knownLinks() {
        List<String> names = links.stream().map(IpoibLink::name).sorted().toList();
        return names.isEmpty() ? "none" : String.join(", ", names);
    }

    IpoibLink requireLink(String name, String usage) {
        IpoibLink l = link(name);
        if (l == null) {
            throw usage(usage, "no interface '" + name + "' (interfaces: " + knownLinks() + ")");
        }
        return l;
    }

    /** The resolver of a family (the latest registered), or null. */
    NeighbourResolver resolver(boolean v6) {
        String family = v6 ? NeighbourResolver.IPV6 : NeighbourResolver.IPV4;
        NeighbourResolver found = null;
        for (Map.Entry<NeighbourResolver, String> e : resolvers) {
            if (family.equals(e.getValue())) {
                found = e.getKey();
            }
        }
        return found;
    }

    NeighbourResolver requireResolver(boolean v6) {
        NeighbourResolver r = resolver(v6);
        if (r == null) {
            throw new IllegalStateException("no " + (v6 ? "IPv6 (ipoib.nd)" : "IPv4 (ipoib.arp)") + " resolver is running");
        }
        return r;
    }

    static InetAddress address(String text, String usage) {
        try {
            return AddressTable.parseAddress(text, "expected an IPv4 or IPv6 address, e.g. 10.0.0.2 or fe80::1", text);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
    }

    /** A destination with an optional {@code %interface} (IPv6 link-local scope), as ping takes it. */
    record Target(InetAddress address, String link) {}

    /**
     * The one destination of {@code ping} or {@code resolve}: {@code address[%interface]}, whose
     * scope must agree with {@code -I} when both are given.
     */
    Target target(String[] operands, String linkOption, String usage) {
        if (operands == null || operands.length == 0) {
            throw usage(usage, "no destination address");
        }
        for (String o : operands) {
            if (o.startsWith("-")) {
                throw usage(usage, "unknown option '" + o + "'");
            }
        }
        if (operands.length > 1) {
            throw usage(usage, "unexpected argument '" + operands[1] + "' (one destination only)");
        }
        String text = operands[0];
        String link = linkOption == null || linkOption.isEmpty() ? null : linkOption;
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

    /** An option's number in {@code min..max}, or a usage error naming the option, the value and the range. */
    static double number(String text, String option, double min, double max, String usage) {
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

    /** {@link #number} for a whole number. */
    static int integer(String text, String option, int min, int max, String usage) {
        double v = number(text, option, min, max, usage);
        if (v != Math.rint(v)) {
            throw usage(usage, "option " + option + " value " + text + " is not a whole number (" + min + ".." + max + ")");
        }
        return (int) v;
    }

    static String trim(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }
}
