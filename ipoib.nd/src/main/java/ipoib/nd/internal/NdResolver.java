package ipoib.nd.internal;

import ipoib.api.host.AddressListener;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.neighbour.ForwardingResolver;
import ipoib.neighbour.ResolverShell;
import ipoib.neighbour.Settings;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.ConfigValues;
import java.util.Map;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The Neighbor Discovery resolver's DS component: checks the configuration, runs the control
 * thread, binds the links, the address table, the multicast manager and EventAdmin, and hands
 * everything to its {@link NdEngine}. The host hands it ND message types through the one receive
 * method {@link #onNeighborDiscovery}.
 */
@Component(configurationPid = NdResolver.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {NeighbourResolver.class, NeighborDiscoveryReceiver.class, LinkListener.class, AddressListener.class},
        property = NeighbourResolver.FAMILY_PROPERTY + "=" + NeighbourResolver.IPV6)
@Designate(ocd = NdConfiguration.class)
public final class NdResolver extends ForwardingResolver implements NeighborDiscoveryReceiver, LinkListener,
        AddressListener {

    /** Configuration PID. */
    public static final String PID = "ipoib.nd";

    /** Every property against its range, type and options as declared once in {@link NdConfiguration}. */
    private static final ConfigCheck CHECK = ConfigCheck.of(NdConfiguration.class);

    /** A checked configuration. */
    private record Checked(Settings settings, NdOptions options) {

        static Checked of(NdConfiguration c) {
            return new Checked(Settings.of(c.retransmitMillis(), c.requests(), c.unicastProbes(), c.queueLength(),
                    c.maxEntries(), c.revalidateMillis(), c.idleMillis(), c.failedHoldMillis(), c.pathTimeoutMillis(),
                    c.serviceLevel()), NdOptions.of(c));
        }

        static Checked of(NdConfiguration c, Map<String, ?> properties) {
            CHECK.checkDeclared(properties);
            return of(c);
        }

        static Checked defaults() {
            return of(ConfigValues.of(NdConfiguration.class, Map.of()));
        }
    }

    private final ResolverShell shell;
    private final NdEngine engine;

    @Activate
    public NdResolver(NdConfiguration configuration, Map<String, Object> properties,
                      @Reference ConfigurationAdmin configurationAdmin,
                      @Reference(service = LoggerFactory.class) Logger log) {
        this.shell = new ResolverShell("ND", "ipoib-nd", log, configurationAdmin);
        Checked checked = shell.activation(properties, () -> Checked.of(configuration, properties), Checked::defaults);
        this.engine = new NdEngine(checked.settings(), checked.options(), shell.control(), shell);
    }

    @Modified
    void modified(NdConfiguration configuration, Map<String, Object> properties) {
        Checked checked = shell.modification(properties, () -> Checked.of(configuration, properties));
        if (checked != null) {
            engine.reconfigure(checked.settings(), checked.options());
        }
    }

    @Deactivate
    void deactivate() {
        engine.close();
        shell.close();
    }

    @Override
    protected NeighbourResolver resolver() {
        return engine;
    }

    // ---- references ---------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        engine.addLink(link);
    }

    void removeLink(IpoibLink link) {
        engine.removeLink(link);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setAddresses(InterfaceAddresses table) {
        engine.setAddresses(table);
    }

    void unsetAddresses(InterfaceAddresses table) {
        engine.unsetAddresses(table);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setMulticast(MulticastService service) {
        engine.setMulticast(service);
    }

    void unsetMulticast(MulticastService service) {
        engine.unsetMulticast(service);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setEventAdmin(EventAdmin admin) {
        shell.setEventAdmin(admin);
    }

    void unsetEventAdmin(EventAdmin admin) {
        shell.unsetEventAdmin(admin);
    }

    // ---- the engine's inputs ------------------------------------------------------------------------

    @Override
    public void onNeighborDiscovery(IpoibLink link, ReceivedFrame frame, int icmpv6Type) {
        engine.onNeighborDiscovery(link, frame, icmpv6Type);
    }

    @Override
    public void linkChanged(IpoibLink link, LinkListener.Change change) {
        engine.linkChanged(link, change);
    }

    @Override
    public void addressChanged(InterfaceAddress address, AddressListener.Change change) {
        engine.addressChanged(address, change);
    }
}
