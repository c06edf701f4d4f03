package ipoib.host.internal;

import ipoib.api.host.InterfaceAddresses;
import ipoib.api.host.IpHost;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.Clock;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The host's shell commands (scope {@code ipoib}), thin as Felix's ScrGogoCommand: it tracks the
 * links and resolvers and registers one plain command object per function ({@link AddrCommand},
 * {@link NeighCommand}, {@link ResolveCommand}, {@link PingCommand}), whose options Gogo parses
 * from their {@code @Parameter} annotations.
 */
@Component(service = {}, immediate = true)
public final class HostCommands {
    private final CommandContext context = new CommandContext();
    private final List<ServiceRegistration<?>> registrations = new ArrayList<>();

    @Activate
    public HostCommands(BundleContext bundle, @Reference InterfaceAddresses addresses, @Reference IpHost host,
                        @Reference ConfigurationAdmin configurationAdmin) {
        register(bundle, "addr", new AddrCommand(addresses, configurationAdmin, context));
        register(bundle, "neigh", new NeighCommand(context));
        register(bundle, "resolve", new ResolveCommand(host, context));
        register(bundle, "ping", new PingCommand(host, context, Clock.SYSTEM, PingRun.Waiter.REAL));
    }

    private void register(BundleContext bundle, String function, Object command) {
        Hashtable<String, Object> p = new Hashtable<>();
        p.put("osgi.command.scope", "ipoib");
        p.put("osgi.command.function", function);
        registrations.add(bundle.registerService(Object.class, command, p));
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : registrations) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework is stopping.
            }
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        context.links.add(link);
    }

    void removeLink(IpoibLink link) {
        context.links.remove(link);
    }

    /** A link bridged to a network device (the kernel owns the link's addresses there: ipoib:ping refuses). */
    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC,
            target = "(" + FrameHandler.BRIDGE_PROPERTY + "=*)")
    void addBridge(FrameHandler bridge, Map<String, Object> properties) {
        if (properties.get(FrameHandler.LINK_PROPERTY) instanceof String link) {
            Object netns = properties.get(FrameHandler.BRIDGE_NETNS_PROPERTY);
            context.bridged.add(new CommandContext.Bridged(properties.get(Constants.SERVICE_ID), link,
                    String.valueOf(properties.get(FrameHandler.BRIDGE_PROPERTY)), netns == null ? "" : netns.toString()));
        }
    }

    void removeBridge(FrameHandler bridge, Map<String, Object> properties) {
        Object id = properties.get(Constants.SERVICE_ID);
        context.bridged.removeIf(b -> b.registration().equals(id));
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        context.resolvers.add(Map.entry(resolver, String.valueOf(properties.get(NeighbourResolver.FAMILY_PROPERTY))));
    }

    void removeResolver(NeighbourResolver resolver) {
        context.resolvers.removeIf(e -> e.getKey() == resolver);
    }
}
