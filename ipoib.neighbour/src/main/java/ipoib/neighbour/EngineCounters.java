package ipoib.neighbour;

import ipoib.runtime.Counters;
import java.util.concurrent.atomic.LongAdder;

/** The neighbour engine's counters, by the names {@code ipoib:neigh} and the service show. */
final class EngineCounters {
    final LongAdder solicitations;
    final LongAdder retransmissions;
    final LongAdder probes;
    final LongAdder resolved;
    final LongAdder pathLookups;
    final LongAdder pathFailures;
    final LongAdder resolutionFailures;
    final LongAdder revalidations;
    final LongAdder pathRefreshes;
    final LongAdder qpnChanges;
    final LongAdder gidChanges;
    final LongAdder queued;
    final LongAdder queuedSent;
    final LongAdder droppedQueueFull;
    final LongAdder droppedTableFull;
    final LongAdder droppedPathFailure;
    final LongAdder droppedResolutionFailed;
    final LongAdder droppedFailedEntry;
    final LongAdder droppedLinkDown;
    final LongAdder droppedFlushed;
    final LongAdder droppedNoSource;
    final LongAdder evicted;
    final LongAdder collected;

    EngineCounters(Counters counters) {
        solicitations = counters.counter("solicitations_sent");
        retransmissions = counters.counter("solicitations_retransmitted");
        probes = counters.counter("unicast_probes_sent");
        resolved = counters.counter("resolved");
        pathLookups = counters.counter("path_lookups");
        pathFailures = counters.counter("path_failures");
        resolutionFailures = counters.counter("resolution_failures");
        revalidations = counters.counter("revalidations");
        pathRefreshes = counters.counter("path_refreshes");
        qpnChanges = counters.counter("qpn_changes");
        gidChanges = counters.counter("gid_changes");
        queued = counters.counter("frames_queued");
        queuedSent = counters.counter("queued_frames_sent");
        droppedQueueFull = counters.counter("dropped_queue_full");
        droppedTableFull = counters.counter("dropped_table_full");
        droppedPathFailure = counters.counter("dropped_path_failure");
        droppedResolutionFailed = counters.counter("dropped_resolution_failed");
        droppedFailedEntry = counters.counter("dropped_failed_entry");
        droppedLinkDown = counters.counter("dropped_link_down");
        droppedFlushed = counters.counter("dropped_flushed");
        droppedNoSource = counters.counter("dropped_no_source_address");
        evicted = counters.counter("entries_evicted");
        collected = counters.counter("entries_collected");
    }
}
