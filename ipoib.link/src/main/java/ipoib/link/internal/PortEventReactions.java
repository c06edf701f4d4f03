package ipoib.link.internal;

import ipoib.api.McMemberRecord;
import ipoib.api.link.LinkListener;
import ipoib.api.link.LinkState;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortEvent;
import ipoib.runtime.ControlLoop;

/**
 * What a link does when its port reports an event (IBA 11.6.3 asynchronous events, as Linux's
 * ipoib_event handles them): down on a port error or device reset, up when the port becomes
 * active, paths refreshed on a LID or SM change, the broadcast group joined again after a client
 * re-register, a new start when the P_Key or GID table changed under the queue pair. Runs on the
 * link's control loop.
 */
final class PortEventReactions {
    private final LinkStateMachine machine;
    private final BroadcastJoin join;
    private final LinkEngine link;
    private final LinkStatus status;
    private final ControlLoop control;
    private final LinkHooks hooks;
    private final LinkConfig config;

    /** Reactions for {@code machine} (of {@code link}), re-joining the broadcast group through {@code join}. */
    PortEventReactions(LinkStateMachine machine, BroadcastJoin join, LinkEngine link) {
        this.machine = machine;
        this.join = join;
        this.link = link;
        this.status = link.status();
        this.control = link.control();
        this.hooks = link.hooks();
        this.config = link.config();
    }

    /** The port's listener: called on the provider's thread, handled on the loop. */
    void onPortEvent(PortEvent event) {
        control.execute(() -> {
            Port port = machine.port();
            if (event.port() != port || machine.closed()) {
                return;
            }
            switch (event.type()) {
                case PORT_ERROR -> machine.goDown("port " + LinkStateMachine.describe(port) + " went down", true);
                case DEVICE_FATAL -> machine.goDown("device " + port.device().name() + " was reset", true);
                case PORT_ACTIVE -> {
                    if (status.state() == LinkState.DOWN) {
                        machine.bringUp();
                    }
                }
                case LID_CHANGE -> {
                    LinkResources r = status.resources();
                    if (r != null) {
                        r.ownLid = port.attributes().lid().value();
                        pathsStale(r);
                    }
                }
                case SM_CHANGE -> {
                    LinkResources r = status.resources();
                    if (r != null && status.state() == LinkState.UP) {
                        pathsStale(r);
                    }
                }
                case CLIENT_REREGISTER -> rejoinBroadcast();
                case PKEY_CHANGE -> onPKeyTableChanged(port);
                case GID_CHANGE -> machine.restart("the GID table of port " + LinkStateMachine.describe(port)
                        + " changed");
            }
        });
    }

    /** Every path is queried again, and the resolvers are told (Linux: ipoib_flush_paths on these events). */
    private void pathsStale(LinkResources r) {
        r.paths.refreshAll();
        hooks.notifyListeners(link, LinkListener.Change.PATHS_STALE);
    }

    /**
     * The P_Key table changed (IBA 10.9.2; the SM's partition configuration). The queue pair is
     * bound to one table index: while that index still holds the same key, another partition came
     * or went and the link has nothing to do. Otherwise the link comes up again from the new table:
     * DOWN with the reason when the partition is gone, else a new queue pair on the key's new index
     * or membership. The broadcast-GID always carries the full-membership P_Key (RFC 4391 §4.1),
     * so a port that became a limited member joins the same broadcast group.
     */
    private void onPKeyTableChanged(Port port) {
        LinkResources r = status.resources();
        var table = port.pkeyTable();
        if (r != null && status.state() == LinkState.UP) {
            var entry = table.get(r.pkeyIndex);
            if (entry.isPresent() && entry.get().value() == r.pkeyValue) {
                hooks.info(config.name() + ": P_Key table of port " + LinkStateMachine.describe(port) + " changed to "
                        + table + "; entry " + r.pkeyIndex + " (" + entry.get() + ") is unchanged");
                return;
            }
        }
        machine.restart("the P_Key table of port " + LinkStateMachine.describe(port) + " changed to " + table);
    }

    /**
     * After a client re-register the SM has forgotten our joins: join the broadcast group again
     * (creating it when it is gone and creation is configured), keeping the data path when its
     * Q_Key and MTU are unchanged (following a new MLID in place), and tell the multicast manager
     * to join its groups again.
     */
    private void rejoinBroadcast() {
        LinkResources r = status.upResources();
        if (r == null) {
            machine.joinAgain();
            return;
        }
        int gen = machine.generation();
        McMemberRecord before = r.broadcast();
        join.joinOrCreate(r.port, r.gid, before.mgid(), config.pkey().asFullMember())
                .whenComplete((record, failure) -> control.execute(() -> {
                    if (gen != machine.generation() || machine.closed()) {
                        return;
                    }
                    if (failure != null) {
                        machine.restart("broadcast re-join failed: " + BroadcastJoin.unwrap(failure).getMessage());
                        return;
                    }
                    rejoined(r, before, record);
                }));
    }

    private void rejoined(LinkResources r, McMemberRecord before, McMemberRecord record) {
        if (!record.qkey().equals(before.qkey()) || record.mtu() != before.mtu()) {
            machine.restart("broadcast group parameters changed after re-register (Q_Key " + record.qkey()
                    + ", MTU " + record.mtu() + ")");
            return;
        }
        if (!record.mlid().equals(before.mlid())) {
            try {
                r.rebindBroadcast(record);
            } catch (RuntimeException e) {
                machine.restart("cannot attach to the broadcast group's new MLID " + record.mlid() + ": "
                        + e.getMessage());
                return;
            }
            hooks.info(config.name() + ": broadcast group " + record.mgid() + " moved from MLID " + before.mlid()
                    + " to " + record.mlid());
        }
        hooks.info(config.name() + ": re-joined the broadcast group after a client re-register");
        hooks.notifyListeners(link, LinkListener.Change.MULTICAST_RESET);
        pathsStale(r);
    }
}
