package ipoib.link.internal.commands;

import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.link.internal.LinkRules;
import ipoib.runtime.CaptureFiles;
import ipoib.runtime.JsonText;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.service.command.Descriptor;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The Gogo commands of the link bundle (scope {@code ipoib}): the shell's surface and the
 * services they need, each command handed to a plain class ({@link LinkReport},
 * {@link ConfigurationCommands}, {@link CaptureCommand}), as Felix's ScrGogoCommand hands to ScrCommand.
 */
@Component(service = LinkCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=links",
        "osgi.command.function=stats",
        "osgi.command.function=create",
        "osgi.command.function=delete",
        "osgi.command.function=await",
        "osgi.command.function=capture",
        "osgi.command.function=paths",
        "osgi.command.function=mode",
        "osgi.command.function=cm",
        "ipoib.command.completion=links <interface> --json",
        "ipoib.command.completion=stats <interface> --json",
        "ipoib.command.completion=paths <interface> --json",
        "ipoib.command.completion=cm <interface> --json",
        "ipoib.command.completion=create <device> <port> <pkey> <name>",
        "ipoib.command.completion=delete <interface>",
        "ipoib.command.completion=await all|<interface>",
        "ipoib.command.completion=capture <interface> <file> <count>",
        "ipoib.command.completion=capture <interface> stop",
        "ipoib.command.completion=capture --json",
        "ipoib.command.completion=mode <interface> datagram|connected"})
public final class LinkCommands {

    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();
    /** The resolvers, for their drop counters in ipoib:stats. */
    private final Map<String, NeighbourResolver> resolvers = new ConcurrentSkipListMap<>();
    private final LinkReport report = new LinkReport(links, resolvers, () -> configurations().configuredNotStarted());
    private final CaptureCommand captures = new CaptureCommand(links, LinkCommands::captureFiles);

    @Reference
    ConfigurationAdmin configurationAdmin;

    @Reference
    LinkRules rules;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        resolvers.put(String.valueOf(properties.get(NeighbourResolver.FAMILY_PROPERTY)), resolver);
    }

    void removeResolver(NeighbourResolver resolver) {
        resolvers.values().removeIf(r -> r == resolver);
    }

    /** The capture directory the launch properties name (system properties outside a framework). */
    private static CaptureFiles captureFiles() {
        Bundle bundle = FrameworkUtil.getBundle(LinkCommands.class);
        BundleContext context = bundle == null ? null : bundle.getBundleContext();
        return CaptureFiles.fromProperties(context == null ? System::getProperty : context::getProperty);
    }

    private ConfigurationCommands configurations() {
        return new ConfigurationCommands(configurationAdmin, rules, links);
    }

    @Descriptor("list the IPoIB interfaces (or one): state and reason, HCA/port, P_Key, QPN, GID, link address, MTU, Q_Key, broadcast-GID, provider")
    public String links(@Descriptor("interface name (optional); --json: as JSON") String... names) {
        return JsonText.wanted(names) ? report.linksJson(JsonText.withoutFlag(names)) : report.links(names);
    }

    @Descriptor("show the path cache of every interface, or of one: destination GID, LID, SL, MTU, rate, and the cache's counters")
    public String paths(@Descriptor("interface name (optional); --json: as JSON") String... names) {
        return JsonText.wanted(names) ? report.pathsJson(JsonText.withoutFlag(names)) : report.paths(names);
    }

    @Descriptor("show the counters of every interface, or of one")
    public String stats(@Descriptor("interface name (optional); --json: as JSON") String... names) {
        return JsonText.wanted(names) ? report.statsJson(JsonText.withoutFlag(names)) : report.stats(names);
    }

    @Descriptor("create an IPoIB interface at runtime")
    public String create(@Descriptor("<device> <port 1..254> <P_Key> [name, default ibX_Y_Z]") String... args)
            throws IOException {
        return configurations().create(args);
    }

    @Descriptor("delete an IPoIB interface")
    public String delete(@Descriptor("<interface>") String... args) throws IOException, InvalidSyntaxException {
        return configurations().delete(args);
    }

    @Descriptor("show or set an interface's mode, datagram or connected (Linux's sysfs mode); setting it writes the "
            + "interface's configuration, and the interface switches without a restart")
    public String mode(@Descriptor("<interface> [datagram|connected]") String... args)
            throws IOException, InvalidSyntaxException {
        return configurations().mode(args);
    }

    @Descriptor("list the reliable connections of connected-mode interfaces (or of one): direction, state, peer UD QPN, "
            + "LID, GID, RC QPNs, PSNs, MTU, idle seconds, counters; the service ID and the port's CM counters")
    public String cm(@Descriptor("interface name (optional); --json: as JSON") String... names) {
        return JsonText.wanted(names) ? CmCommand.cmJson(sorted(links), JsonText.withoutFlag(names))
                : CmCommand.cm(sorted(links), names);
    }

    @Descriptor("wait until every interface (or the named one) is UP; fails after the timeout")
    public String await(@Descriptor("interface name or 'all' (optional, default all)") String... args)
            throws InterruptedException {
        return configurations().await(args);
    }

    @Descriptor("capture an interface's frames, both directions, to a pcapng file (LINKTYPE_IPOIB 242 with the "
            + "40-octet pseudo-header): ipoib:capture <interface> <file> [count, default 1000] | "
            + "ipoib:capture <interface> stop | ipoib:capture [--json] (status)")
    public String capture(@Descriptor("<interface> <file> [count] | <interface> stop | nothing (or --json) for the status")
                          String... args) throws IOException {
        return captures.capture(args);
    }

    /** The interfaces by name. */
    static List<IpoibLink> sorted(List<IpoibLink> links) {
        List<IpoibLink> out = new ArrayList<>(links);
        out.sort(Comparator.comparing(IpoibLink::name));
        return out;
    }

    /** A shell argument error: what was wrong, then the usage line. */
    static IllegalArgumentException usage(String usage, String error) {
        return new IllegalArgumentException(error + "\nusage: " + usage);
    }
}
