package ipoib.api.sa;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

/**
 * The subnet administrator client of one port (IBA 15.4). Every request retries on timeout
 * and completes exceptionally with {@link SaException} when the SA answered with an error status
 * or not at all. Stages complete on a provider thread: do not block in dependent actions.
 */
@ProviderType
public interface SubnetAdministrator {

    /**
     * PathRecord Get (IBA 15.2.5.16) from this port to {@code destination} in a partition.
     * Completes with status {@link SaStatus#NO_RECORDS} when the destination is unknown.
     */
    CompletionStage<PathRecord> pathRecord(Gid source, Gid destination, PKey pkey);

    /**
     * MCMemberRecord Set that joins an existing group (IBA 15.2.5.17). Only MGID, port GID and
     * join state are sent; the answer carries the group's parameters.
     */
    CompletionStage<McMemberRecord> join(Mgid mgid, Gid portGid, JoinState state);

    /**
     * MCMemberRecord Set that joins a group and creates it with the parameters of
     * {@code template} (Q_Key, P_Key, MTU, rate, SL, flow label, hop limit, traffic class)
     * when it does not exist.
     */
    CompletionStage<McMemberRecord> create(McMemberRecord template);

    /** MCMemberRecord Delete: leaves a group with one join state. */
    CompletionStage<Void> leave(Mgid mgid, Gid portGid, JoinState state);

    /** MCMemberRecord Get of a group: its record, or empty when it does not exist. */
    CompletionStage<Optional<McMemberRecord>> group(Mgid mgid);

    /** MCMemberRecord GetTable: every member record the SA shows to this client. */
    CompletionStage<List<McMemberRecord>> groups();

    /**
     * Subscribes (InformInfo Set, IBA 13.4.8.3) to a group trap, for one group or every group
     * ({@code mgid} null). Reports are acknowledged by the client and passed to the listener on
     * a provider thread. The subscription stays until the returned handle is closed or the port
     * gets a client re-register (then subscribe again).
     */
    CompletionStage<AutoCloseable> subscribe(GroupTrap.Type type, Mgid mgid, Consumer<GroupTrap> listener);

    /**
     * ClassPortInfo Get (IBA 13.4.8.1): what the SA supports, e.g. SendOnlyFullMember joins. Linux
     * asks before its first send-only join (ipoib_multicast.c, ib_sa_sendonly_fullmem_support).
     * An implementation that cannot ask completes with {@link SaStatus#METHOD_ATTRIBUTE_NOT_SUPPORTED}.
     *
     * @since 1.1
     */
    default CompletionStage<SaCapabilities> capabilities() {
        return java.util.concurrent.CompletableFuture.failedFuture(new SaException("ClassPortInfo Get",
                SaStatus.METHOD_ATTRIBUTE_NOT_SUPPORTED));
    }

    /**
     * The client's counters by name (requests sent, retransmitted, timed out, answers unmatched or
     * malformed, reports, ...) for metrics and diagnostics; empty when the implementation keeps none.
     *
     * @since 1.1
     */
    default java.util.Map<String, Long> statistics() {
        return java.util.Map.of();
    }

    /**
     * Seconds from each answered request's first send to its answer, retransmissions included;
     * an implementation that does not measure them gives a histogram without bounds or
     * observations.
     *
     * @since 1.1
     */
    default ipoib.api.metrics.HistogramSample roundTrips() {
        return ipoib.api.metrics.HistogramSample.empty();
    }
}
