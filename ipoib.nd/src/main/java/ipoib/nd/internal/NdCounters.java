package ipoib.nd.internal;

import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceCounters.Counter;

/** ND's own counters, by the names {@code ipoib:neigh} shows (the neighbour table adds its own to the set). */
final class NdCounters {
    final Counter nsIn;
    final Counter naIn;
    final Counter nsOut;
    final Counter naOut;
    final Counter announcementsIn;
    final Counter dadProbes;
    final Counter dadDuplicates;
    final Counter dadPassed;
    final Counter rsOut;
    final Counter raIn;
    final Counter raMtuApplied;
    final Counter raMtuIgnored;
    final Counter autoconfigured;
    final Counter malformed;
    final Counter ignored;
    final Counter noMulticast;
    final Counter conflicts;

    NdCounters(InterfaceCounters counters) {
        nsIn = counters.counter("solicitations_received");
        naIn = counters.counter("advertisements_received");
        nsOut = counters.counter("ns_sent");
        naOut = counters.counter("na_sent");
        announcementsIn = counters.counter("announcements_heard");
        dadProbes = counters.counter("dad_probes_sent");
        dadDuplicates = counters.counter("dad_duplicates");
        dadPassed = counters.counter("dad_passed");
        rsOut = counters.counter("router_solicitations_sent");
        raIn = counters.counter("router_advertisements_received");
        raMtuApplied = counters.counter("ra_mtu_applied");
        raMtuIgnored = counters.counter("ra_mtu_ignored");
        autoconfigured = counters.counter("addresses_autoconfigured");
        malformed = counters.counter("rx_malformed");
        ignored = counters.counter("rx_ignored");
        noMulticast = counters.counter("dropped_no_multicast_service");
        conflicts = counters.counter("address_conflicts");
    }
}
