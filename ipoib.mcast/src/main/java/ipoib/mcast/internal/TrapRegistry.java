package ipoib.mcast.internal;

import ipoib.api.sa.GroupTrap;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import ipoib.runtime.Reporter;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.IdentityHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * The group-trap subscriptions of every port, shared by the links on it (control thread only).
 *
 * <p>RFC 4391 §10 makes senders follow group creation and deletion (traps 66 and 67) and §11
 * makes routers follow creation with a wildcard MGID. One wildcard subscription of each trap per
 * port serves every link of the port: the SA keys an InformInfo by subscriber port, trap and GID,
 * so two links subscribing alike would share one registration, and the first to unsubscribe would
 * end it for the other.
 */
final class TrapRegistry {
    private final ControlLoop control;
    private final Reporter reporter;
    private final Map<SubnetAdministrator, PortTraps> ports = new IdentityHashMap<>();

    TrapRegistry(ControlLoop control, Reporter reporter) {
        this.control = control;
        this.reporter = reporter;
    }

    /**
     * Registers a link on its port's subscriptions, subscribing when the port has none yet, or
     * again when {@code renew} says the SA may have forgotten them (a client re-register).
     */
    PortTraps attach(SubnetAdministrator sa, TrapFollower link, int retryCount, boolean renew) {
        PortTraps traps = ports.computeIfAbsent(sa, PortTraps::new);
        traps.links.add(link);
        traps.retryCount = retryCount;
        if (renew || !traps.subscribing) {
            traps.subscribe();
        }
        return traps;
    }

    /** Removes a link; the port's subscriptions end with its last link. */
    void detach(PortTraps traps, TrapFollower link) {
        if (traps == null) {
            return;
        }
        traps.links.remove(link);
        if (traps.links.isEmpty()) {
            ports.remove(traps.sa, traps);
            traps.close();
        }
    }

    void closeAll() {
        for (PortTraps t : new ArrayList<>(ports.values())) {
            t.links.clear();
            t.close();
        }
        ports.clear();
    }

    /**
     * The two wildcard subscriptions of one port.
     *
     * <p>Renewing subscribes again before anything is closed: the SA keeps one registration per
     * (port, trap, GID) and a repeated InformInfo replaces it, while the SA client sends the
     * unsubscribe only when its last local subscription of a trap is closed. So an old handle is
     * closed only once a newer one of its trap is in place, and closing it never ends the
     * registration at the SA. (Closing a late answer of an earlier round at once would unsubscribe
     * at the SA after the newer round subscribed, and the port would silently hear no trap.)
     */
    final class PortTraps {
        final SubnetAdministrator sa;
        final Set<TrapFollower> links = new LinkedHashSet<>();
        int retryCount = 5;
        private int generation;
        private int failures;
        private boolean closed;
        /** A round of subscriptions is made or under way (false after a failure, until the retry). */
        boolean subscribing;
        /** The confirmed subscription of each trap. */
        private final Map<GroupTrap.Type, AutoCloseable> current = new EnumMap<>(GroupTrap.Type.class);
        /** Handles of earlier rounds, closed when a newer handle of their trap is confirmed. */
        private final List<Map.Entry<GroupTrap.Type, AutoCloseable>> retired = new ArrayList<>();
        private Cancellable retry;

        PortTraps(SubnetAdministrator sa) {
            this.sa = sa;
        }

        /** Subscribes both traps (again); answers of an earlier round are retired by their generation. */
        void subscribe() {
            int gen = ++generation;
            subscribing = true;
            cancelRetry();
            for (GroupTrap.Type type : GroupTrap.Type.values()) {
                try {
                    sa.subscribe(type, null, this::onTrap)
                            .whenComplete((handle, failure) -> onControl(() -> subscribed(gen, type, handle, failure)));
                } catch (RuntimeException e) {
                    // The provider is going away: the stage was never made.
                    subscribed(gen, type, null, e);
                }
            }
        }

        private void subscribed(int gen, GroupTrap.Type type, AutoCloseable handle, Throwable failure) {
            if (closed) {
                closeQuietly(handle); // the port's last link left: unsubscribing is right
                return;
            }
            if (failure == null) {
                if (gen == generation) {
                    failures = 0;
                    AutoCloseable old = current.put(type, handle);
                    if (old != null) {
                        retired.add(Map.entry(type, old));
                    }
                } else {
                    retired.add(Map.entry(type, handle));
                }
                closeRetired(type);
                return;
            }
            if (gen != generation) {
                return; // a newer round is under way
            }
            failures++;
            subscribing = false;
            long backoff = ipoib.runtime.Backoff.IPOIB_JOIN.afterFailure(failures, retryCount);
            Throwable cause = SaRequests.unwrap(failure);
            // RFC 4391 §12: a lost subscription fails silently later (traffic stays with all-routers): say so now.
            reporter.warn("subscription to multicast group trap " + type.trapNumber() + " ("
                    + type.name().toLowerCase(java.util.Locale.ROOT) + ") failed: " + cause.getMessage()
                    + "; subscribing again in " + JoinMachine.seconds(backoff));
            if (retry == null) {
                retry = control.schedule(() -> {
                    retry = null;
                    if (!closed && gen == generation) {
                        subscribe();
                    }
                }, backoff, TimeUnit.MILLISECONDS);
            }
        }

        /** Closes the retired handles of a trap once a current one is confirmed (no unsubscribe reaches the SA). */
        private void closeRetired(GroupTrap.Type type) {
            if (current.get(type) == null) {
                return;
            }
            for (var it = retired.iterator(); it.hasNext(); ) {
                var e = it.next();
                if (e.getKey() == type) {
                    it.remove();
                    closeQuietly(e.getValue());
                }
            }
        }

        /** A trap from the SA client (a provider thread): handled on the control thread by every link of the port. */
        private void onTrap(GroupTrap trap) {
            onControl(() -> {
                if (!closed) {
                    for (TrapFollower link : new ArrayList<>(links)) {
                        link.onTrap(trap);
                    }
                }
            });
        }

        private void onControl(Runnable task) {
            control.execute(task);
        }

        private void cancelRetry() {
            if (retry != null) {
                retry.cancel();
                retry = null;
            }
        }

        /** Ends both subscriptions (the port's last link left). */
        void close() {
            closed = true;
            generation++;
            cancelRetry();
            for (var e : retired) {
                closeQuietly(e.getValue());
            }
            retired.clear();
            for (AutoCloseable h : current.values()) {
                closeQuietly(h);
            }
            current.clear();
        }

        private static void closeQuietly(AutoCloseable handle) {
            if (handle != null) {
                try {
                    handle.close();
                } catch (Exception ignored) {
                    // Unsubscribing from a port that is gone: the SA forgot the subscription with it.
                }
            }
        }
    }
}
