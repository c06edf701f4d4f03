package ipoib.mcast.internal;

import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 * The multicast manager of every link. It follows the links through their services (one group
 * manager per {@link IpoibLink}, with the link's join timeout and retry count from its service
 * properties) and through the {@link LinkListener} whiteboard (UP, DOWN, MULTICAST_RESET).
 *
 * <p>One control thread ({@code ipoib-mcast}) runs every group state change of every link, in
 * order; framework callbacks and SA answers only hand work to it, so none of them blocks or
 * throws. The send path runs on the caller's thread.
 */
@Component(configurationPid = MulticastComponent.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {MulticastService.class, LinkListener.class}, immediate = true)
@Designate(ocd = MulticastConfiguration.class)
public final class MulticastComponent implements MulticastService, LinkListener, McastEnvironment {

    /** Configuration PID. */
    public static final String PID = "ipoib.mcast";
    /** How long a caller waits for the control thread (snapshots, decisions) before giving up. */
    private static final long CALL_TIMEOUT_MILLIS = 10_000;

    private final Logger log;
    private final ScheduledThreadPoolExecutor control;
    private final TrapRegistry traps;
    /** Link name → its groups; read by senders. */
    private final Map<String, LinkGroups> links = new ConcurrentHashMap<>();
    private volatile EventAdmin eventAdmin;
    private volatile int queueLength;
    private volatile int maxGroups;
    private volatile long auditMillis;

    @Activate
    public MulticastComponent(MulticastConfiguration configuration,
                              @Reference(service = LoggerFactory.class) Logger log) {
        this.log = log;
        apply(configuration);
        this.control = new ScheduledThreadPoolExecutor(1, r -> {
            Thread t = new Thread(r, "ipoib-mcast");
            t.setDaemon(true);
            return t;
        });
        control.setRemoveOnCancelPolicy(true);
        control.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
        this.traps = new TrapRegistry(this);
    }

    @Modified
    void modified(MulticastConfiguration configuration) {
        apply(configuration);
    }

    private void apply(MulticastConfiguration c) {
        if (c.pendingFramesPerGroup() < 1 || c.pendingFramesPerGroup() > 4096) {
            String m = "invalid ipoib multicast property 'pendingFramesPerGroup' value " + c.pendingFramesPerGroup()
                    + ": allowed 1..4096";
            log.error(m);
            throw new IllegalArgumentException(m);
        }
        if (c.maxGroupsPerLink() < 16 || c.maxGroupsPerLink() > 65536) {
            String m = "invalid ipoib multicast property 'maxGroupsPerLink' value " + c.maxGroupsPerLink()
                    + ": allowed 16..65536";
            log.error(m);
            throw new IllegalArgumentException(m);
        }
        if (c.auditSeconds() < 5 || c.auditSeconds() > 3600) {
            String m = "invalid ipoib multicast property 'auditSeconds' value " + c.auditSeconds() + ": allowed 5..3600";
            log.error(m);
            throw new IllegalArgumentException(m);
        }
        queueLength = c.pendingFramesPerGroup();
        maxGroups = c.maxGroupsPerLink();
        auditMillis = c.auditSeconds() * 1000L;
    }

    @Deactivate
    void deactivate() {
        try {
            control.submit(() -> {
                for (LinkGroups g : links.values()) {
                    g.close();
                }
                links.clear();
                traps.closeAll();
            }).get(CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException | RejectedExecutionException e) {
            log.warn("multicast manager did not stop cleanly: " + e);
        }
        control.shutdownNow();
        try {
            control.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    // ---- references --------------------------------------------------------------------------------------

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(MulticastAttachment attachment, Map<String, Object> properties) {
        IpoibLink link = attachment.link();
        int timeout = intProperty(properties, IpoibLink.MCAST_JOIN_TIMEOUT_PROPERTY, 1000, 10, 60_000);
        int retries = intProperty(properties, IpoibLink.MCAST_RETRY_COUNT_PROPERTY, 5, 1, 100);
        onControl(() -> {
            LinkGroups old = links.get(link.name());
            if (old != null) {
                if (old.link() == link) {
                    return;
                }
                links.remove(link.name(), old);
                old.close();
            }
            LinkGroups groups = new LinkGroups(attachment, timeout, retries, this);
            links.put(link.name(), groups);
            groups.syncWithLink();
        });
    }

    void removeLink(MulticastAttachment attachment) {
        IpoibLink link = attachment.link();
        onControl(() -> {
            LinkGroups groups = links.get(link.name());
            if (groups != null && groups.link() == link) {
                links.remove(link.name(), groups);
                groups.close();
            }
        });
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

    private static int intProperty(Map<String, Object> properties, String key, int fallback, int min, int max) {
        Object v = properties.get(key);
        if (v instanceof Number n && n.intValue() >= min && n.intValue() <= max) {
            return n.intValue();
        }
        return fallback;
    }

    // ---- LinkListener (the link's control thread: hand over, never block) ------------------------------------

    @Override
    public void linkChanged(IpoibLink link, Change change) {
        onControl(() -> {
            LinkGroups groups = links.get(link.name());
            if (groups != null && groups.link() == link) {
                groups.onLinkChange(link, change);
            }
        });
    }

    // ---- MulticastService ----------------------------------------------------------------------------------

    @Override
    public CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group) {
        requireMulticast(group);
        return onControlAsync(() -> groupsOf(linkName).joinListener(group));
    }

    @Override
    public CompletionStage<Void> leaveListener(String linkName, InetAddress group) {
        requireMulticast(group);
        return onControlAsync(() -> groupsOf(linkName).leaveListener(group));
    }

    @Override
    public TransmitResult send(IpoibLink link, InetAddress group, int etherType, MemorySegment packet) {
        LinkGroups groups = links.get(link.name());
        if (groups == null) {
            return link.state() == LinkState.UP ? TransmitResult.DROPPED_NO_RESOLVER : TransmitResult.DROPPED_LINK_DOWN;
        }
        return groups.send(link, group, etherType, packet);
    }

    @Override
    public EgressDecision egressDecision(String linkName, Mgid mgid) {
        if (mgid == null) {
            throw new IllegalArgumentException("MGID must not be null");
        }
        return await(onControlAsync(() -> groupsOf(linkName).decide(mgid)), linkName);
    }

    @Override
    public EgressDecision egressDecision(String linkName, InetAddress group) {
        requireMulticast(group);
        return await(onControlAsync(() -> groupsOf(linkName).decide(group)), linkName);
    }

    @Override
    public List<GroupInfo> groups(String linkName) {
        return await(onControlAsync(() -> {
            List<LinkGroups> selected = new ArrayList<>();
            if (linkName == null) {
                selected.addAll(links.values());
                selected.sort(Comparator.comparing(g -> g.name));
            } else {
                selected.add(groupsOf(linkName));
            }
            List<GroupInfo> out = new ArrayList<>();
            for (LinkGroups g : selected) {
                out.addAll(g.snapshot());
            }
            return CompletableFuture.completedFuture(List.copyOf(out));
        }), linkName);
    }

    @Override
    public Map<String, Long> counters(String linkName) {
        LinkGroups groups = links.get(linkName);
        return groups == null ? Map.of() : groups.counters.snapshot();
    }

    @Override
    public void setRouterMode(String linkName, boolean enabled) {
        await(onControlAsync(() -> {
            groupsOf(linkName).setRouterMode(enabled);
            return CompletableFuture.completedFuture(null);
        }), linkName);
    }

    @Override
    public boolean isRouterMode(String linkName) {
        return await(onControlAsync(() -> CompletableFuture.completedFuture(groupsOf(linkName).routerMode())), linkName);
    }

    /** The names of the links followed, sorted. */
    List<String> linkNames() {
        List<String> names = new ArrayList<>(links.keySet());
        names.sort(null);
        return names;
    }

    private LinkGroups groupsOf(String linkName) {
        LinkGroups groups = linkName == null ? null : links.get(linkName);
        if (groups == null) {
            throw new IllegalArgumentException("no interface '" + linkName + "'"
                    + (links.isEmpty() ? " (no interfaces)" : " (interfaces: " + String.join(", ", linkNames()) + ")"));
        }
        return groups;
    }

    private static void requireMulticast(InetAddress group) {
        if (group == null || !group.isMulticastAddress()) {
            throw new IllegalArgumentException((group == null ? "null" : Destination.text(group))
                    + " is not an IP multicast group (224.0.0.0/4 or ff00::/8)");
        }
    }

    // ---- the control thread ----------------------------------------------------------------------------------

    private void onControl(Runnable task) {
        try {
            control.execute(() -> {
                try {
                    task.run();
                } catch (RuntimeException e) {
                    log.error("multicast manager: unexpected failure", e);
                }
            });
        } catch (RejectedExecutionException stopping) {
            // Deactivated: links and events that arrive now have nobody to manage them.
        }
    }

    /** Runs a task that answers a stage on the control thread; its failure (e.g. an unknown link) fails the stage. */
    private <T> CompletableFuture<T> onControlAsync(Callable<CompletableFuture<T>> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            control.execute(() -> {
                try {
                    task.call().whenComplete((v, f) -> {
                        if (f != null) {
                            result.completeExceptionally(f);
                        } else {
                            result.complete(v);
                        }
                    });
                } catch (Exception e) {
                    result.completeExceptionally(e);
                }
            });
        } catch (RejectedExecutionException stopping) {
            result.completeExceptionally(new IllegalStateException("the multicast manager is stopped"));
        }
        return result;
    }

    /** Waits for a control-thread answer; argument errors come back as the caller's exception. */
    private <T> T await(CompletableFuture<T> answer, String linkName) {
        try {
            return answer.get(CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the multicast manager about " + linkName, e);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(String.valueOf(cause), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the multicast manager did not answer within " + CALL_TIMEOUT_MILLIS
                    + " ms about " + linkName, e);
        }
    }

    // ---- McastEnvironment --------------------------------------------------------------------------------

    @Override
    public ScheduledExecutorService control() {
        return control;
    }

    @Override
    public int queueLength() {
        return queueLength;
    }

    @Override
    public int maxGroups() {
        return maxGroups;
    }

    @Override
    public long auditMillis() {
        return auditMillis;
    }

    @Override
    public TrapRegistry traps() {
        return traps;
    }

    @Override
    public void postEvent(String topic, Map<String, Object> properties) {
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
}
