package ipoib.mcast.internal;

import ipoib.api.metrics.HistogramSample;
import ipoib.api.Mgid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.link.MulticastAttachment;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.EgressDecision;
import ipoib.api.mcast.GroupInfo;
import ipoib.api.mcast.MulticastService;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

/**
 * The multicast manager of every link, as a plain class: the DS component, the tests and the
 * benchmarks each build one with a control loop, settings and a reporter. One {@link LinkGroups}
 * per link service; every state change of every link runs on the one control loop, in order;
 * callers and SA answers only hand work to it. The send path runs on the caller's thread.
 */
public final class MulticastEngine implements MulticastService, LinkListener, AutoCloseable {
    /** How long a caller waits for the control loop (snapshots, decisions) before giving up. */
    private static final long CALL_TIMEOUT_MILLIS = 10_000;

    private final ControlLoop control;
    private final Reporter reporter;
    private final TrapRegistry traps;
    private final ListenerBook listeners = new ListenerBook();
    /** Link name → its groups; read by senders. */
    private final Map<String, LinkGroups> links = new ConcurrentHashMap<>();
    private volatile McastSettings settings;

    public MulticastEngine(ControlLoop control, McastSettings settings, Reporter reporter) {
        this.control = control;
        this.settings = settings;
        this.reporter = reporter;
        this.traps = new TrapRegistry(control, reporter);
    }

    /** New settings; a changed audit period takes effect at once. */
    public void update(McastSettings changed) {
        McastSettings before = settings;
        settings = changed;
        if (before.auditMillis() != changed.auditMillis()) {
            control.execute(() -> links.values().forEach(LinkGroups::auditPeriodChanged));
        }
    }

    public McastSettings settings() {
        return settings;
    }

    /**
     * Follows a link service: its groups are managed with its join timeout and retry count, and
     * the listeners of its interface name are joined again. A new service of a name replaces the
     * old one's manager.
     */
    public void addLink(MulticastAttachment attachment, int joinTimeoutMillis, int retryCount) {
        IpoibLink link = attachment.link();
        control.execute(() -> {
            LinkGroups old = links.get(link.name());
            if (old != null) {
                if (old.link() == link) {
                    return;
                }
                links.remove(link.name(), old);
                old.close();
            }
            LinkGroups groups = new LinkGroups(attachment, joinTimeoutMillis, retryCount, control, reporter, traps,
                    this::settings);
            links.put(link.name(), groups);
            listeners.of(link.name()).forEach(groups::restoreListener);
            groups.syncWithLink();
        });
    }

    /** The link service is gone: its groups are left; its listeners stay for the next service of the name. */
    public void removeLink(MulticastAttachment attachment) {
        IpoibLink link = attachment.link();
        control.execute(() -> {
            LinkGroups groups = links.get(link.name());
            if (groups != null && groups.link() == link) {
                links.remove(link.name(), groups);
                groups.close();
            }
        });
    }

    /** A link's change (on the link's thread: handed over, never blocks). */
    @Override
    public void linkChanged(IpoibLink link, Change change) {
        control.execute(() -> {
            LinkGroups groups = links.get(link.name());
            if (groups != null && groups.link() == link) {
                groups.onLinkChange(link, change);
            }
        });
    }

    @Override
    public CompletionStage<GroupInfo> joinListener(String linkName, InetAddress group) {
        requireMulticast(group);
        return onControl(() -> {
            CompletableFuture<GroupInfo> joined = groupsOf(linkName).joinListener(group);
            if (!joined.isCompletedExceptionally()) {
                listeners.add(linkName, group);
            }
            return joined;
        });
    }

    @Override
    public CompletionStage<Void> leaveListener(String linkName, InetAddress group) {
        requireMulticast(group);
        return onControl(() -> {
            LinkGroups groups = links.get(linkName == null ? "" : linkName);
            if (groups == null && listeners.remove(linkName, group)) {
                return CompletableFuture.completedFuture(null); // the interface's service is away: its listener is gone
            }
            CompletableFuture<Void> left = groupsOf(linkName).leaveListener(group);
            listeners.remove(linkName, group);
            return left;
        });
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
        return await(onControl(() -> groupsOf(linkName).decide(mgid)), linkName);
    }

    @Override
    public EgressDecision egressDecision(String linkName, InetAddress group) {
        requireMulticast(group);
        return await(onControl(() -> groupsOf(linkName).decide(group)), linkName);
    }

    @Override
    public List<GroupInfo> groups(String linkName) {
        return control.call(() -> {
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
            return List.copyOf(out);
        }, CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Seconds from each successful join's request to its membership, of one link (none: empty). */
    public HistogramSample joinTimes(String linkName) {
        LinkGroups groups = links.get(linkName);
        return groups == null ? HistogramSample.empty() : groups.joinTimes();
    }

    @Override
    public Map<String, Long> counters(String linkName) {
        LinkGroups groups = links.get(linkName);
        return groups == null ? Map.of() : groups.counters().snapshot();
    }

    @Override
    public void setRouterMode(String linkName, boolean enabled) {
        control.run(() -> groupsOf(linkName).setRouterMode(enabled), CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    @Override
    public boolean isRouterMode(String linkName) {
        return control.call(() -> groupsOf(linkName).routerMode(), CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** The names of the links followed, sorted. */
    public List<String> linkNames() {
        List<String> names = new ArrayList<>(links.keySet());
        names.sort(null);
        return names;
    }

    /** Leaves every group of every link and ends the trap subscriptions; the control loop is the caller's. */
    @Override
    public void close() {
        control.run(() -> {
            for (LinkGroups g : links.values()) {
                g.close();
            }
            links.clear();
            traps.closeAll();
        }, CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
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

    /** Runs a task that answers a stage on the control loop; its failure (e.g. an unknown link) fails the stage. */
    private <T> CompletableFuture<T> onControl(Supplier<CompletableFuture<T>> task) {
        CompletableFuture<T> result = new CompletableFuture<>();
        control.execute(() -> {
            try {
                task.get().whenComplete((v, f) -> {
                    if (f != null) {
                        result.completeExceptionally(f);
                    } else {
                        result.complete(v);
                    }
                });
            } catch (RuntimeException e) {
                result.completeExceptionally(e);
            }
        });
        if (control.isClosed()) {
            result.completeExceptionally(new IllegalStateException("the multicast manager is stopped"));
        }
        return result;
    }

    /** Waits for a control-loop answer; argument errors come back as the caller's exception. */
    private static <T> T await(CompletableFuture<T> answer, String linkName) {
        try {
            return answer.get(CALL_TIMEOUT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while asking the multicast manager about " + linkName, e);
        } catch (ExecutionException e) {
            Throwable cause = SaRequests.unwrap(e.getCause());
            if (cause instanceof RuntimeException r) {
                throw r;
            }
            throw new IllegalStateException(String.valueOf(cause), cause);
        } catch (TimeoutException e) {
            throw new IllegalStateException("the multicast manager did not answer within " + CALL_TIMEOUT_MILLIS
                    + " ms about " + linkName, e);
        }
    }
}
