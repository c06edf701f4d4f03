package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.config.LastGoodConfiguration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
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
 * One IPoIB interface per factory configuration: checks the configuration, claims its name,
 * port and partition ({@link LinkClaims}), runs a {@link LinkEngine} on it and registers the
 * engine as {@link IpoibLink} and its {@link MulticastAttachment}. The verbs provider is a
 * dynamic, greedy, optional reference: without one the interface stays registered and DOWN with
 * the reason; a provider that comes (back) brings it UP without any other action. Frame
 * handlers, link listeners and EventAdmin reach the engine through {@link ComponentHooks}.
 */
@Component(configurationPid = IpoibLinkComponent.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = LinkConfiguration.class, factory = true)
public final class IpoibLinkComponent {

    /** Factory PID of interface configurations. */
    public static final String FACTORY_PID = "ipoib.link";
    /** What each configuration's component handled last, across the bundle's components ({@code ipoib:await}). */
    public static final HandledConfigurations HANDLED = new HandledConfigurations();

    private final BundleContext context;
    private final Logger log;
    private final ComponentHooks hooks;
    private final LinkClaims claims = LinkClaims.INSTANCE;
    private volatile VerbsProvider provider;
    /** The stored configuration in force; a refused update is written back to it. */
    private final LastGoodConfiguration lastGood;
    private final Object pid;

    // Guarded by this: the configuration in force and what runs it (null while refused).
    private LinkConfig config;
    /** The mode property: applied to the running engine without a restart (ModeSwitch). */
    private boolean connectedMode;
    private Running running;
    private boolean deactivated;

    /** The engine of the configuration in force and its two service registrations. */
    private record Running(LinkEngine engine, ServiceRegistration<IpoibLink> link,
                           ServiceRegistration<MulticastAttachment> multicast) {}

    @Activate
    public IpoibLinkComponent(BundleContext context, LinkConfiguration configuration, Map<String, Object> properties,
                              @Reference ConfigurationAdmin configurationAdmin,
                              @Reference(service = LoggerFactory.class) Logger log) {
        this.context = context;
        this.log = log;
        this.hooks = new ComponentHooks(log);
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        claims.owner(String.valueOf(properties.get("service.pid")), this);
        this.pid = properties.get("service.pid");
        LinkConfig checked;
        try {
            checked = LinkConfig.checked(configuration, properties);
        } catch (IllegalArgumentException e) {
            // Nothing ran with it: the configuration is deleted (one WARN line says why).
            String name = configuration.name() == null || configuration.name().isBlank()
                    ? String.valueOf(properties.get("service.pid")) : configuration.name().strip();
            claims.refuse(this, name, e.getMessage(), () -> { });
            HANDLED.handled(properties);
            lastGood.refused(properties, e.getMessage());
            return;
        }
        synchronized (this) {
            config = checked;
            connectedMode = connected(configuration);
            lastGood.accepted(properties);
            start();
        }
        HANDLED.handled(properties);
    }

    private static boolean connected(LinkConfiguration configuration) {
        return "connected".equals(configuration.mode());
    }

    /**
     * A new configuration: a bad value or a conflicting name, port or partition is refused and the
     * configuration in force keeps running (shown in {@code ipoib:links}); a good one restarts the
     * interface with it.
     */
    @Modified
    void modified(LinkConfiguration configuration, Map<String, Object> properties) {
        try {
            apply(configuration, properties);
        } finally {
            HANDLED.handled(properties);
        }
    }

    private void apply(LinkConfiguration configuration, Map<String, Object> properties) {
        if (lastGood.isOwnWriteBack(properties)) {
            return; // the configuration in force, stored again after a refusal: the refusal stays shown
        }
        LinkConfig next;
        try {
            next = LinkConfig.checked(configuration, properties);
        } catch (IllegalArgumentException e) {
            refuseUpdate(properties, e.getMessage());
            return;
        }
        synchronized (this) {
            boolean nextMode = connected(configuration);
            if (config == null) {
                config = next; // the first configuration was refused: try this one
                connectedMode = nextMode;
                lastGood.accepted(properties);
                start();
                return;
            }
            String conflict = claims.conflict(this, next);
            if (conflict != null) {
                refuseUpdate(properties, conflict);
                return;
            }
            lastGood.accepted(properties);
            if (next.equals(config) && running != null) {
                // The configuration in force stored again (after a refusal, or by a user) changes nothing:
                // a refused update stays shown until another configuration is taken.
                if (nextMode != connectedMode) {
                    claims.refusedUpdate(config.name(), null);
                    connectedMode = nextMode; // the mode alone changed: the interface keeps running
                    running.engine().setConnectedMode(nextMode);
                }
                return;
            }
            claims.refusedUpdate(config.name(), null);
            stop();
            claims.release(this);
            config = next;
            connectedMode = nextMode;
            start();
        }
    }

    /** The interface keeps running with the configuration in force, which is stored again. */
    private void refuseUpdate(Map<String, Object> properties, String why) {
        String name;
        synchronized (this) {
            name = config == null ? null : config.name();
        }
        if (name != null) {
            claims.refusedUpdate(name, why);
        }
        lastGood.refused(properties, why);
    }

    /** Claims the name, port and partition and runs the configuration, or waits refused. Holds this. */
    private void start() {
        if (deactivated || running != null) {
            return;
        }
        String conflict = claims.claim(this, config);
        if (conflict != null) {
            log.error("interface " + config.name() + " refused: " + conflict);
            claims.refuse(this, config.name(), conflict, this::retry);
            return;
        }
        LinkEngine engine = new LinkEngine(config, hooks);
        engine.setConnectedMode(connectedMode);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(IpoibLink.NAME_PROPERTY, config.name());
        props.putAll(config.describe());
        ServiceRegistration<IpoibLink> link = context.registerService(IpoibLink.class, engine, props);
        ServiceRegistration<MulticastAttachment> multicast =
                context.registerService(MulticastAttachment.class, engine.multicastAttachment(), props);
        running = new Running(engine, link, multicast);
        hooks.handlers.forLink(config.name());
        VerbsProvider p = provider;
        if (p != null) {
            engine.providerAvailable(p);
        }
    }

    /** The holder of a conflicting claim went away: try again. */
    private void retry() {
        synchronized (this) {
            start();
        }
    }

    /** Unregisters and closes the running interface. Holds this. */
    private void stop() {
        Running r = running;
        running = null;
        if (r == null) {
            return;
        }
        for (ServiceRegistration<?> reg : List.of(r.multicast(), r.link())) {
            try {
                reg.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework is stopping.
            }
        }
        r.engine().close();
    }

    @Deactivate
    void deactivate() {
        synchronized (this) {
            deactivated = true;
            stop();
        }
        claims.release(this);
        claims.forgetOwner(this);
        HANDLED.forget(pid);
    }

    private synchronized LinkEngine engine() {
        return running == null ? null : running.engine();
    }

    // ---- references ----------------------------------------------------------------------------------

    // DS calls the constructor before any bind method; the engine is null while the configuration is refused.

    @Reference(name = "provider", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindProvider(VerbsProvider p) {
        provider = p;
        LinkEngine engine = engine();
        if (engine != null) {
            engine.providerAvailable(p);
        }
    }

    void unbindProvider(VerbsProvider p) {
        if (provider == p) {
            provider = null;
        }
        LinkEngine engine = engine();
        if (engine != null) {
            engine.providerGone(p);
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addFrameHandler(FrameHandler handler, Map<String, Object> properties) {
        String ignored = hooks.handlers.add(handler, properties);
        if (ignored != null) {
            log.warn(ignored);
        }
    }

    void removeFrameHandler(FrameHandler handler) {
        hooks.handlers.remove(handler);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLinkListener(LinkListener listener) {
        hooks.addListener(listener);
    }

    void removeLinkListener(LinkListener listener) {
        hooks.removeListener(listener);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void setEventAdmin(EventAdmin admin) {
        hooks.eventAdmin(admin);
    }

    void unsetEventAdmin(EventAdmin admin) {
        hooks.eventAdminGone(admin);
    }
}
