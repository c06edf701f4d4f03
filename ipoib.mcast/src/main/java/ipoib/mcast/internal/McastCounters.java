package ipoib.mcast.internal;

import ipoib.runtime.Counters;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The multicast manager's counters of one link, by the names {@code ipoib:mcast} shows; adders, so that senders never contend. */
final class McastCounters {
    private final Counters counters = new Counters();
    /** Frames held in a group's queue while its join was under way. */
    final LongAdder queued = counters.counter("tx_queued");
    /** Queued frames sent when the join completed. */
    final LongAdder sentAfterJoin = counters.counter("tx_sent_after_join");
    /** Frames sent to the all-routers group because their group does not exist (§10), counted when sent. */
    final LongAdder viaAllRouters = counters.counter("tx_via_all_routers");
    /** Frames of §10's last branch: no group, no all-routers group (or a link-local group). */
    final LongAdder droppedNoRoute = counters.counter("tx_dropped_no_route");
    /** Frames refused because the group's queue was full. */
    final LongAdder droppedQueueFull = counters.counter("tx_dropped_queue_full");
    /** Queued frames freed when their join failed, and frames refused while a failed group rests. */
    final LongAdder droppedJoinFailed = counters.counter("tx_dropped_join_failed");
    /** Queued frames freed when the link went DOWN, and frames sent to a link that is not UP. */
    final LongAdder droppedLinkDown = counters.counter("tx_dropped_link_down");
    /** Frames larger than the link MTU (not queued). */
    final LongAdder droppedTooBig = counters.counter("tx_dropped_too_big");
    /** Frames to a new group while the link's group table is full. */
    final LongAdder droppedTableFull = counters.counter("tx_dropped_group_table_full");
    /** Frames to an address that is not a multicast group. */
    final LongAdder droppedNotMulticast = counters.counter("tx_dropped_not_multicast");
    final LongAdder lookups = counters.counter("sa_lookups");
    final LongAdder joins = counters.counter("joins");
    final LongAdder joinFailures = counters.counter("join_failures");
    final LongAdder leaves = counters.counter("leaves");
    final LongAdder leaveFailures = counters.counter("leave_failures");
    final LongAdder trapsCreated = counters.counter("traps_created");
    final LongAdder trapsDeleted = counters.counter("traps_deleted");
    /** Groups the audit found deleted or created anew without a trap telling. */
    final LongAdder auditRepairs = counters.counter("audit_repairs");
    /** Send-only memberships left because no frame used them for the idle time (as Linux reaps them). */
    final LongAdder sendOnlyIdleLeaves = counters.counter("send_only_idle_leaves");

    Map<String, Long> snapshot() {
        return counters.snapshot();
    }
}
