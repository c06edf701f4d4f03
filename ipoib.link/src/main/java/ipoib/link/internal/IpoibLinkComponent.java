package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.verbs.VerbsProvider;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One IPoIB interface per factory configuration. The verbs provider is a dynamic, greedy,
 * optional reference: without one the interface stays registered and DOWN with the reason; a
 * provider that comes (back) brings it UP without any other action.
 */
@Component(configurationPid = IpoibLinkComponent.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = LinkConfiguration.class, factory = true)
public final class IpoibLinkComponent implements LinkHooks {

    /** Factory PID of interface configurations. */
    public static final String FACTORY_PID = "ipoib.link";


    private final LinkEngine engine;
    private final Logger log;
    private final ServiceRegistration<IpoibLink> registration;
    private final ServiceRegistration<MulticastAttachment> multicastRegistration;
    private final List<HandlerEntry> handlerEntries = new CopyOnWriteArrayList<>();
    private final List<LinkListener> listeners = new CopyOnWriteArrayList<>();
    /** EtherType → handlers, rebuilt when handlers come and go; read per frame without locks. */
    private volatile HandlerTable handlersByType = HandlerTable.EMPTY;
    private volatile EventAdmin eventAdmin;

    private record HandlerEntry(FrameHandler handler, int etherType, String link) {}

    @Activate
    public IpoibLinkComponent(BundleContext context, LinkConfiguration configuration,
                              @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        LinkConfig config;
        try {
            config = LinkConfig.from(configuration, LinkConfig.deviceIndex(configuration.device()));
        } catch (IllegalArgumentException e) {
            log.error(e.getMessage());
            throw e;
        }
        this.engine = new LinkEngine(config, this);
        Hashtable<String, Object> props = new Hashtable<>();
        props.put(IpoibLink.NAME_PROPERTY, config.name());
        props.putAll(config.describe());
        this.registration = context.registerService(IpoibLink.class, engine, props);
        this.multicastRegistration = context.registerService(MulticastAttachment.class, new LinkMulticast(engine), props);
    }

    @Deactivate
    void deactivate() {
        try {
            multicastRegistration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // The framework is stopping.
        }
        try {
            registration.unregister();
        } catch (IllegalStateException alreadyGone) {
            // The framework is stopping.
        }
        engine.close();
    }

    // ---- references ----------------------------------------------------------------------------------

    // DS calls the constructor before any bind method, so the engine exists in every bind.

    @Reference(name = "provider", cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    void bindProvider(VerbsProvider provider) {
        engine.providerAvailable(provider);
    }

    void unbindProvider(VerbsProvider provider) {
        engine.providerGone(provider);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addFrameHandler(FrameHandler handler, Map<String, Object> properties) {
        Object type = properties.get(FrameHandler.ETHERTYPE_PROPERTY);
        if (!(type instanceof Number number) || number.intValue() < 0 || number.intValue() > 0xFFFF) {
            log.warn("frame handler " + handler.getClass().getName() + " ignored: service property "
                    + FrameHandler.ETHERTYPE_PROPERTY + " must be an Integer 0..0xFFFF, is " + type);
            return;
        }
        Object link = properties.get(FrameHandler.LINK_PROPERTY);
        handlerEntries.add(new HandlerEntry(handler, number.intValue(), link == null ? null : link.toString()));
        rebuildHandlers();
    }

    void removeFrameHandler(FrameHandler handler) {
        handlerEntries.removeIf(e -> e.handler() == handler);
        rebuildHandlers();
    }

    private void rebuildHandlers() {
        String me = engine.name();
        Map<Integer, List<FrameHandler>> byType = new java.util.HashMap<>();
        for (HandlerEntry e : handlerEntries) {
            if (e.link() == null || e.link().equals(me)) {
                byType.computeIfAbsent(e.etherType(), k -> new ArrayList<>()).add(e.handler());
            }
        }
        handlersByType = HandlerTable.of(byType);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLinkListener(LinkListener listener) {
        listeners.add(listener);
    }

    void removeLinkListener(LinkListener listener) {
        listeners.remove(listener);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    void setEventAdmin(EventAdmin admin) {
        this.eventAdmin = admin;
    }

    void unsetEventAdmin(EventAdmin admin) {
        if (this.eventAdmin == admin) {
            this.eventAdmin = null;
        }
    }

    // ---- LinkHooks -----------------------------------------------------------------------------------

    @Override
    public FrameHandler[] handlers(int etherType) {
        return handlersByType.get(etherType);
    }

    @Override
    public void notifyListeners(IpoibLink link, LinkListener.Change change) {
        for (LinkListener l : listeners) {
            try {
                l.linkChanged(link, change);
            } catch (RuntimeException e) {
                log.warn("link listener " + l.getClass().getName() + " failed on " + change + " of " + link.name(), e);
            }
        }
    }

    @Override
    public void postEvent(String topic, Map<String, Object> properties) {
        EventAdmin admin = eventAdmin;
        if (admin != null) {
            admin.postEvent(new Event(topic, properties));
        }
    }

    @Override
    public void info(String message) {
        log.info(message);
    }

    @Override
    public void warn(String message, Throwable cause) {
        if (cause == null) {
            log.warn(message);
        } else {
            log.warn(message, cause);
        }
    }

    @Override
    public void error(String message, Throwable cause) {
        if (cause == null) {
            log.error(message);
        } else {
            log.error(message, cause);
        }
    }
}
