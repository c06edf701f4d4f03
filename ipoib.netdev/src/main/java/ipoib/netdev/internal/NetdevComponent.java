package ipoib.netdev.internal;

import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.ShownValue;
import ipoib.runtime.config.LastGoodConfiguration;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
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
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One bridged interface per factory configuration {@value #FACTORY_PID}: the device runs while
 * the configuration and the interface do (the link is a static reference), is kept with its
 * carrier off while the interface or this bundle restarts, and goes away with its configuration
 * or the appliance; see {@link #deactivate}.
 */
@Component(configurationPid = NetdevComponent.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {}, immediate = true)
@Designate(ocd = NetdevConfiguration.class, factory = true)
public final class NetdevComponent {
    /** Factory PID of the bridged interfaces. */
    public static final String FACTORY_PID = "ipoib.netdev";
    /** Declarative Services' ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_DELETED (not on this class path). */
    private static final int CONFIGURATION_DELETED = 4;
    /** ComponentConstants.DEACTIVATION_REASON_CONFIGURATION_MODIFIED: what {@link #modified} restarts with. */
    private static final int CONFIGURATION_MODIFIED = 3;
    /** Seconds between reconciliations of MTU and addresses. */
    static final long SYNC_SECONDS = 2;
    private static final String NAME_CHARACTERS = "[A-Za-z0-9_.-]+";
    /** The types and ranges of the metatype (e.g. {@code offload} a Boolean, not "nope"). */
    static final ConfigCheck CHECK = ConfigCheck.of(NetdevConfiguration.class);

    private final Logger log;
    private final StackAdapter stack;
    private final String link;
    /** The stored configuration in force; a refused one is written back to it. */
    private final LastGoodConfiguration lastGood;
    private BundleContext context;
    /** The configuration's PID: the key under which the device is kept across a restart. */
    private String pid;
    private String netns;
    private NetDevice device;
    private Cancellable sync;
    private AutoCloseable linkUpOrDown;

    /**
     * The link is a static reference (a constructor argument); the resolvers, the multicast
     * manager and the address table are dynamic and bound before {@link #activate} opens the device.
     */
    @Activate
    public NetdevComponent(NetdevConfiguration config, @Reference(name = "link") IpoibLink link,
                           @Reference ConfigurationAdmin configurationAdmin,
                           @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        this.link = config.link();
        this.stack = new StackAdapter(link);
    }

    @Activate
    void activate(BundleContext context, NetdevConfiguration config, Map<String, Object> properties) {
        this.context = context;
        this.pid = String.valueOf(properties.get(Constants.SERVICE_PID));
        String refusal = refusal(config, properties, stack.link());
        if (refusal != null) {
            // Not thrown (DS would log an exception): a device kept for this configuration stays kept for the
            // configuration in force, which is stored again and then comes back through modified.
            Registry.failed(config.link(), refusal);
            lastGood.refused(properties, refusal);
            return;
        }
        Namespaces.watchExit();
        Registry.starting(config.link());
        ParkedDevices.Parked parked = ParkedDevices.take(pid);
        boolean kept = parked != null;
        try {
            String name = config.device().isEmpty() ? config.link() : config.device();
            List<Cidr> addresses = new ArrayList<>();
            for (String a : config.addresses()) {
                addresses.add(Cidr.parse(a));
            }
            this.netns = config.netns().isEmpty() ? null : config.netns();
            if (parked != null && !(parked.netns().equals(config.netns()) && parked.device().equals(name)
                    && parked.offload() == config.offload())) {
                // The configuration now names another device: the kept one goes.
                ParkedDevices.Parked other = parked;
                parked = null;
                ParkedDevices.discard(pid, other, log::warn);
            }
            ParkedDevices.Parked takenBack = parked;
            parked = null; // open takes it back, or closes it when it fails
            this.device = NetDevice.open(context, stack, name, netns, addresses, config.offload(), takenBack,
                    log::warn, log::info);
        } catch (IOException | RuntimeException e) {
            if (parked != null) {
                ParkedDevices.discard(pid, parked, log::warn); // the configuration is refused: it keeps no device
            } else if (!kept && netns != null) {
                // A namespace made for a device that never came: not left behind (kept ones stay with their programs).
                Namespaces.release(netns, Registry.namespacesInUse(null, null));
            }
            // Allowed, but the kernel refused the device (no CAP_NET_ADMIN, a name in use): ipoib:netdev
            // says why; the configuration stays for when the cause is gone.
            Registry.failed(config.link(), e.getMessage());
            log.error("ipoib.netdev " + config.link() + ": " + e.getMessage());
            return;
        }
        lastGood.accepted(properties);
        this.sync = Registry.up(this, device::sync, SYNC_SECONDS);
        NetDevice d = device;
        // The first reconciliation on the loop, not here: devices activate one after another.
        Registry.execute(d::sync);
        this.linkUpOrDown = stack.onUpOrDown(context, () -> Registry.execute(d::sync));
    }

    /**
     * A new configuration: a refused one leaves the device as it is (and the configuration in force
     * is stored again); an allowed one restarts the component as Declarative Services would without
     * this method (the device is kept across it, see {@link #deactivate}).
     */
    @Modified
    void modified(NetdevConfiguration config, Map<String, Object> properties) {
        if (device != null && lastGood.isInForce(properties)) {
            return; // the configuration in force, stored again after a refusal: the device keeps running
        }
        String refusal = refusal(config, properties, stack.link());
        if (refusal != null) {
            if (device == null) {
                Registry.failed(config.link(), refusal);
            }
            lastGood.refused(properties, refusal);
            return;
        }
        deactivate(context, CONFIGURATION_MODIFIED);
        activate(context, config, properties);
    }

    /** Why this component cannot run {@code config}, or null: the metatype (unknown properties too), then its own rules. */
    static String refusal(NetdevConfiguration config, Map<String, ?> properties, IpoibLink link) {
        try {
            CHECK.check(properties);
            check(config, link);
            for (String a : config.addresses()) {
                try {
                    Cidr.parse(a);
                } catch (IllegalArgumentException e) {
                    return "invalid " + FACTORY_PID + " property 'addresses' value " + ShownValue.of(a) + ": " + e.getMessage();
                }
            }
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** Refuses a configuration it cannot run, naming the property, the value and what is allowed. */
    static void check(NetdevConfiguration config, IpoibLink link) {
        if (config.link() == null || config.link().isEmpty()) {
            throw new IllegalArgumentException("invalid ipoib.netdev property 'link' value '': allowed an interface name (ipoib:links)");
        }
        if (!config.link().equals(link.name())) {
            throw new IllegalArgumentException("property link.target selects interface " + link.name() + ", but link is "
                    + config.link() + ": set link.target to (ipoib.link=" + config.link() + ")");
        }
        String device = config.device().isEmpty() ? config.link() : config.device();
        if (device.length() > Tun.MAX_NAME || !device.matches(NAME_CHARACTERS)) {
            throw new IllegalArgumentException("invalid ipoib.netdev property 'device' value " + ShownValue.of(device)
                    + ": allowed 1.." + Tun.MAX_NAME + " characters of A-Z a-z 0-9 _ . -");
        }
        if (!config.netns().isEmpty() && (config.netns().length() > 64 || !config.netns().matches(NAME_CHARACTERS)
                || config.netns().matches("\\.+"))) {
            throw new IllegalArgumentException("invalid ipoib.netdev property 'netns' value " + ShownValue.of(config.netns())
                    + ": allowed 1..64 characters of A-Z a-z 0-9 _ . - (not . or ..)");
        }
    }

    String link() {
        return link;
    }

    NetDevice device() {
        return device;
    }

    StackAdapter stack() {
        return stack;
    }

    /** The namespace, or null for the appliance's own. */
    String netns() {
        return netns;
    }

    /**
     * The device goes with its configuration and with the appliance (the framework stopping);
     * otherwise (the interface restarts, the configuration changes, this bundle stops) it is kept
     * with its carrier off for the next component of the same configuration ({@link ParkedDevices}),
     * so its namespace, the programs there and the user's addresses and routes stay.
     */
    @Deactivate
    void deactivate(BundleContext context, int reason) {
        if (device == null) {
            return;
        }
        sync.cancel();
        try {
            linkUpOrDown.close();
        } catch (Exception e) {
            log.warn("ipoib.netdev " + link + ": " + e.getMessage());
        }
        if (reason == CONFIGURATION_DELETED || frameworkStopping(context)) {
            device.close();
            if (netns != null) {
                Namespaces.release(netns, Registry.namespacesInUse(this, null));
            }
            Registry.down(this); // last: ipoib:netdev del waits for it
        } else {
            ParkedDevices.park(pid, device.park(link));
            Registry.down(this);
        }
        device = null;
    }

    private static boolean frameworkStopping(BundleContext context) {
        try {
            return context.getBundle(Constants.SYSTEM_BUNDLE_ID).getState() != Bundle.ACTIVE;
        } catch (IllegalStateException e) {
            return true; // the context is no longer valid: the framework is going
        }
    }

    // ---- the rest of the stack, through the adapter ------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        if (NeighbourResolver.IPV6.equals(properties.get(NeighbourResolver.FAMILY_PROPERTY))) {
            stack.ipv6 = resolver;
        } else if (NeighbourResolver.IPV4.equals(properties.get(NeighbourResolver.FAMILY_PROPERTY))) {
            stack.ipv4 = resolver;
        }
    }

    void removeResolver(NeighbourResolver resolver) {
        if (stack.ipv4 == resolver) {
            stack.ipv4 = null;
        }
        if (stack.ipv6 == resolver) {
            stack.ipv6 = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setMulticast(MulticastService service) {
        stack.multicast = service;
    }

    void unsetMulticast(MulticastService service) {
        if (stack.multicast == service) {
            stack.multicast = null;
        }
    }

    /** The nd bundle's receiver: the link hands a bridged interface's ND messages to the bridge, which passes them on. */
    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setNeighborDiscovery(NeighborDiscoveryReceiver receiver) {
        stack.neighborDiscovery = receiver;
    }

    void unsetNeighborDiscovery(NeighborDiscoveryReceiver receiver) {
        if (stack.neighborDiscovery == receiver) {
            stack.neighborDiscovery = null;
        }
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void setAddresses(InterfaceAddresses service) {
        stack.addresses = service;
    }

    void unsetAddresses(InterfaceAddresses service) {
        if (stack.addresses == service) {
            stack.addresses = null;
        }
    }
}
