package ipoib.neighbour;

import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceCounters.Counter;

/** The neighbour engine's counters, by the names {@code ipoib:neigh} and the service show, in total and per interface. */
final class EngineCounters {
    final Counter solicitations;
    final Counter retransmissions;
    final Counter probes;
    final Counter resolved;
    final Counter pathLookups;
    final Counter pathFailures;
    final Counter resolutionFailures;
    final Counter revalidations;
    final Counter pathRefreshes;
    final Counter qpnChanges;
    final Counter gidChanges;
    final Counter queued;
    final Counter queuedSent;
    final Counter droppedQueueFull;
    final Counter droppedTableFull;
    final Counter droppedPathFailure;
    final Counter droppedResolutionFailed;
    final Counter droppedFailedEntry;
    final Counter droppedLinkDown;
    final Counter droppedFlushed;
    final Counter droppedNoSource;
    final Counter evicted;
    final Counter collected;

    EngineCounters(InterfaceCounters counters) {
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
