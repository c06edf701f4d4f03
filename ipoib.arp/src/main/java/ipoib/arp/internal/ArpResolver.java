package ipoib.arp.internal;

import ipoib.api.host.AddressListener;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.ReceivedFrame;
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
 * The ARP resolver's DS component: checks the configuration, runs the control thread, binds the
 * links, the address table and EventAdmin, and hands everything to its {@link ArpEngine}.
 */
@Component(configurationPid = ArpResolver.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {NeighbourResolver.class, FrameHandler.class, LinkListener.class, AddressListener.class},
        property = {NeighbourResolver.FAMILY_PROPERTY + "=" + NeighbourResolver.IPV4,
                FrameHandler.ETHERTYPE_PROPERTY + ":Integer=" + EtherType.ARP})
@Designate(ocd = ArpConfiguration.class)
public final class ArpResolver extends ForwardingResolver implements FrameHandler, LinkListener, AddressListener {

    /** Configuration PID. */
    public static final String PID = "ipoib.arp";

    /** Every property against its range, type and options as declared once in {@link ArpConfiguration}. */
    private static final ConfigCheck CHECK = ConfigCheck.of(ArpConfiguration.class);

    private final ResolverShell shell;
    private final ArpEngine engine;

    /** A checked configuration. */
    private record Checked(Settings settings, boolean gratuitous) {

        static Checked of(ArpConfiguration c) {
            return new Checked(Settings.of(c.retransmitMillis(), c.requests(), c.unicastProbes(), c.queueLength(),
                    c.maxEntries(), c.revalidateMillis(), c.idleMillis(), c.failedHoldMillis(), c.pathTimeoutMillis(),
                    c.serviceLevel()), c.gratuitous());
        }

        static Checked of(ArpConfiguration c, Map<String, ?> properties) {
            CHECK.checkDeclared(properties);
            return of(c);
        }

        static Checked defaults() {
            return of(ConfigValues.of(ArpConfiguration.class, Map.of()));
        }
    }

    @Activate
    public ArpResolver(ArpConfiguration configuration, Map<String, Object> properties,
                       @Reference ConfigurationAdmin configurationAdmin,
                       @Reference(service = LoggerFactory.class) Logger log) {
        this.shell = new ResolverShell("ARP", "ipoib-arp", log, configurationAdmin);
        Checked checked = shell.activation(properties, () -> Checked.of(configuration, properties), Checked::defaults);
        this.engine = new ArpEngine(checked.settings(), checked.gratuitous(), shell.control(), shell);
    }

    @Modified
    void modified(ArpConfiguration configuration, Map<String, Object> properties) {
        Checked checked = shell.modification(properties, () -> Checked.of(configuration, properties));
        if (checked != null) {
            engine.reconfigure(checked.settings(), checked.gratuitous());
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
    void setEventAdmin(EventAdmin admin) {
        shell.setEventAdmin(admin);
    }

    void unsetEventAdmin(EventAdmin admin) {
        shell.unsetEventAdmin(admin);
    }

    // ---- the engine's inputs ------------------------------------------------------------------------

    @Override
    public void onFrame(IpoibLink link, ReceivedFrame frame) {
        engine.onFrame(link, frame);
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
