package ipoib.mcast.internal;

import ipoib.api.metrics.HistogramSample;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.runtime.Reporter;
import ipoib.runtime.ThreadControlLoop;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import ipoib.runtime.config.LastGoodConfiguration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The multicast manager as a DS component: the configuration, the link services, the
 * {@link LinkListener} whiteboard and EventAdmin handed to a {@link MulticastEngine} that runs
 * on its own control thread ({@code ipoib-mcast}).
 */
@Component(configurationPid = MulticastComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {MulticastService.class, LinkListener.class}, immediate = true)
@Designate(ocd = MulticastConfiguration.class)
public final class MulticastComponent implements MulticastService, LinkListener {

    /** Configuration PID. */
    public static final String PID = "ipoib.mcast";

    private final Logger log;
    private final ThreadControlLoop control;
    private final MulticastEngine engine;
    /** The stored configuration in force; a refused one is written back to it (or deleted: the defaults). */
    private final LastGoodConfiguration lastGood;
    private volatile EventAdmin eventAdmin;

    @Activate
    public MulticastComponent(Map<String, Object> configuration, @Reference ConfigurationAdmin configurationAdmin,
                              @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        McastSettings settings = accepted(configuration, McastSettings.defaults());
        this.control = new ThreadControlLoop("ipoib-mcast", (message, failure) -> log.error(message, failure));
        this.engine = new MulticastEngine(control, settings, new Reporter() {
            @Override
            public void event(String topic, Map<String, Object> properties) {
                EventAdmin admin = eventAdmin;
                if (admin != null) {
                    try {
                        admin.postEvent(new Event(topic, properties));
                    } catch (RuntimeException e) {
                        // EventAdmin is going away.
                    }
                }
            }

            @Override
            public void info(String message) {
                log.info(message);
            }

            @Override
            public void warn(String message) {
                log.warn(message);
            }

            @Override
            public void error(String message) {
                log.error(message);
            }
        });
    }

    /** A refused configuration leaves the previous one in force (the log says which value and why). */
    @Modified
    void modified(Map<String, Object> configuration) {
        engine.update(accepted(configuration, engine.settings()));
    }

    /**
     * The settings of a configuration, checked against the metatype; {@code previous} when it is
     * refused, and then the configuration in force is stored again (one WARN line).
     */
    private McastSettings accepted(Map<String, Object> configuration, McastSettings previous) {
        try {
            McastSettings settings = SettingsCheck.settings(configuration);
            lastGood.accepted(configuration);
            return settings;
        } catch (IllegalArgumentException refused) {
            lastGood.refused(configuration, refused.getMessage());
            return previous;
        }
    }

    /** The settings in force. */
    McastSettings settings() {
        return engine.settings();
    }

    @Deactivate
    void deactivate() {
        try {
            engine.close();
        } catch (IllegalStateException e) {
            log.warn("multicast manager did not stop cleanly: " + e.getMessage());
        }
        control.close();
        try {
            control.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(MulticastAttachment link, Map<String, Object> properties) {
        engine.addLink(link, intProperty(properties, IpoibLink.MCAST_JOIN_TIMEOUT_PROPERTY, 1000, 10, 60_000),
                intProperty(properties, IpoibLink.MCAST_RETRY_COUNT_PROPERTY, 5, 1, 100));
    }

    void removeLink(MulticastAttachment link) {
        engine.removeLink(link);
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

    /** The link's own multicast settings, published with its service (the link checked them). */
    private static int intProperty(Map<String, Object> properties, String key, int fallback, int min, int max) {
        Object v = properties.get(key);
        if (v instanceof Number n && n.intValue() >= min && n.intValue() <= max) {
            return n.intValue();
        }
        return fallback;
    }

    @Override
    public void linkChanged(IpoibLink link, Change change) {
        engine.linkChanged(link, change);
    }

    @Override
    public CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group) {
        return engine.joinListener(linkName, group);
    }

    @Override
    public CompletionStage<Void> leaveListener(String linkName, InetAddress group) {
        return engine.leaveListener(linkName, group);
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet) {
        return engine.send(link, group, etherType, packet);
    }

    @Override
    public EgressDecision egressDecision(String linkName, Mgid mgid) {
        return engine.egressDecision(linkName, mgid);
    }

    @Override
    public EgressDecision egressDecision(String linkName, InetAddress group) {
        return engine.egressDecision(linkName, group);
    }

    @Override
    public List<GroupInfo> groups(String linkName) {
        return engine.groups(linkName);
    }

    /** Seconds from each successful join's request to its membership, of one link. */
    HistogramSample joinTimes(String linkName) {
        return engine.joinTimes(linkName);
    }

    @Override
    public Map<String, Long> counters(String linkName) {
        return engine.counters(linkName);
    }

    @Override
    public void setRouterMode(String linkName, boolean enabled) {
        engine.setRouterMode(linkName, enabled);
    }

    @Override
    public boolean isRouterMode(String linkName) {
        return engine.isRouterMode(linkName);
    }
}
