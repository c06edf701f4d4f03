package ipoib.mcast.internal;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/** The multicast manager's counters of one link; adders, so that senders never contend. */
final class McastCounters {
    /** Frames held in a group's queue while its join was under way. */
    final LongAdder queued = new LongAdder();
    /** Queued frames sent when the join completed. */
    final LongAdder sentAfterJoin = new LongAdder();
    /** Frames sent to the all-routers group because their group does not exist (§10). */
    final LongAdder viaAllRouters = new LongAdder();
    /** Frames of §10's last branch: no group, no all-routers group (or a link-local group). */
    final LongAdder droppedNoRoute = new LongAdder();
    /** Frames refused because the group's queue was full. */
    final LongAdder droppedQueueFull = new LongAdder();
    /** Queued frames freed when their join failed, and frames refused while a failed group rests. */
    final LongAdder droppedJoinFailed = new LongAdder();
    /** Queued frames freed when the link went DOWN, and frames sent to a link that is not UP. */
    final LongAdder droppedLinkDown = new LongAdder();
    /** Frames larger than the link MTU (not queued). */
    final LongAdder droppedTooBig = new LongAdder();
    /** Frames to a new group while the link's group table is full. */
    final LongAdder droppedTableFull = new LongAdder();
    /** Frames to an address that is not a multicast group. */
    final LongAdder droppedNotMulticast = new LongAdder();
    final LongAdder lookups = new LongAdder();
    final LongAdder joins = new LongAdder();
    final LongAdder joinFailures = new LongAdder();
    final LongAdder leaves = new LongAdder();
    final LongAdder leaveFailures = new LongAdder();
    final LongAdder trapsCreated = new LongAdder();
    final LongAdder trapsDeleted = new LongAdder();
    /** Groups the audit found deleted or created anew without a trap telling. */
    final LongAdder auditRepairs = new LongAdder();

    Map<String, Long> snapshot() {
        Map<String, Long> out = new LinkedHashMap<>();
        out.put("tx_queued", queued.sum());
        out.put("tx_sent_after_join", sentAfterJoin.sum());
        out.put("tx_via_all_routers", viaAllRouters.sum());
        out.put("tx_dropped_no_route", droppedNoRoute.sum());
        out.put("tx_dropped_queue_full", droppedQueueFull.sum());
        out.put("tx_dropped_join_failed", droppedJoinFailed.sum());
        out.put("tx_dropped_link_down", droppedLinkDown.sum());
        out.put("tx_dropped_too_big", droppedTooBig.sum());
        out.put("tx_dropped_group_table_full", droppedTableFull.sum());
        out.put("tx_dropped_not_multicast", droppedNotMulticast.sum());
        out.put("sa_lookups", lookups.sum());
        out.put("joins", joins.sum());
        out.put("join_failures", joinFailures.sum());
        out.put("leaves", leaves.sum());
        out.put("leave_failures", leaveFailures.sum());
        out.put("traps_created", trapsCreated.sum());
        out.put("traps_deleted", trapsDeleted.sum());
        out.put("audit_repairs", auditRepairs.sum());
        return out;
    }
}
