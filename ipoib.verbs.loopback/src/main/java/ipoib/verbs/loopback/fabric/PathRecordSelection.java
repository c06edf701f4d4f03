package ipoib.verbs.loopback.fabric;

import ipoib.api.PathRecord;
import ipoib.api.sa.SaStatus;
import ipoib.codec.mad.SaPathRecord;
import ipoib.codec.mad.Selector;
import java.util.ArrayList;
import java.util.List;

/**
 * The components of a unicast PathRecord query as OpenSM 3.3.23 applies them
 * (osm_sa_path_record.c): the request checks of {@code osm_pr_rcv_process} (lines 1758-1790),
 * the MTU, rate and PacketLifeTime selectors of {@code pr_rcv_get_path_parms} (486-606), the
 * Reversible and NumbPath handling of {@code pr_rcv_get_lid_pair_path} and
 * {@code pr_rcv_get_port_pair_paths} (1010-1025, 1188-1196), and the answer
 * {@code pr_rcv_build_pr} writes (875-972). A selector nobody meets disqualifies the path
 * silently, as in OpenSM: a Get then answers no records, a GetTable an empty table.
 *
 * <p>With LMC > 0 a port pair has several LID pairs, each a path, in OpenSM's order: first the
 * "fully redundant" pairs (base+i to base+i, Preference 0), then the rest (Preference 2). Every
 * path is reversible (the partitions are symmetric); there is no QoS policy, so a ServiceID
 * changes nothing.
 */
final class PathRecordSelection {
    /**
     * OpenSM's ordered_rates (libopensm/osm_helper.c:444-467): a rate code's rank by speed, for
     * codes 0..22; {@code ib_path_compare_rates} and {@code ib_path_rate_get_prev} use it.
     */
    private static final int[] RANK = {0, 0, 1, 3, 6, 2, 5, 9, 10, 13, 14, 4, 12, 16, 17, 7, 15, 18, 19, 8, 11, 20, 21};
    /** IB_MIN_RATE and IB_MAX_RATE (ib_types.h): 2.5 Gb/s and 600 Gb/s. */
    static final int MIN_RATE = 2;
    static final int MAX_RATE = 22;

    private PathRecordSelection() {}

    /**
     * The request checks before any path is computed (osm_pr_rcv_process): a rate or MTU code
     * outside the valid range with its selector is ERR_REQ_INVALID; one half of the ServiceID
     * component without the other is ERR_REQ_INSUFFICIENT_COMPONENTS.
     */
    static void checkRequest(long mask, SaPathRecord q) throws SaStatusException {
        if (both(mask, SaPathRecord.CM_RATE_SELECTOR | SaPathRecord.CM_RATE)
                && (q.rate() < MIN_RATE || q.rate() > MAX_RATE)) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "PathRecord rate code " + q.rate()
                    + " is not valid (osm_pr_rcv_process, ib_rate_is_valid: 2..22)");
        }
        if (both(mask, SaPathRecord.CM_MTU_SELECTOR | SaPathRecord.CM_MTU) && (q.mtu() < 1 || q.mtu() > 5)) {
            throw new SaStatusException(SaStatus.REQUEST_INVALID, "PathRecord MTU code " + q.mtu()
                    + " is not valid (osm_pr_rcv_process, ib_mtu_is_valid: 1..5)");
        }
        long service = mask & SaPathRecord.CM_SERVICE_ID;
        if (service != 0 && service != SaPathRecord.CM_SERVICE_ID) {
            throw new SaStatusException(SaStatus.INSUFFICIENT_COMPONENTS,
                    "PathRecord ServiceID needs both its components, MSB and LSB (osm_pr_rcv_process)");
        }
    }

    /** A range of LIDs of one end: the port's 2^LMC LIDs, or the one a SLID/DLID component names. */
    record LidRange(int min, int max) {}

    /**
     * The answer records for a port pair: none when a selector disqualifies the path or a GetTable
     * asks for NumbPath 0, else one record per LID pair (up to NumbPath) as OpenSM writes them.
     *
     * @param path the path between the base LIDs (its MTU, rate, lifetime, P_Key, SL)
     */
    static List<SaPathRecord> select(long mask, SaPathRecord q, boolean getTable, PathRecord path, LidRange source,
                                     LidRange destination) {
        // "If SubnAdmGet, assume NumbPaths 1 (1.2 erratum)"; a GetTable asks NumbPath or all.
        int wanted = !getTable ? 1 : (mask & SaPathRecord.CM_NUMB_PATH) != 0 ? q.numberOfPaths() : Integer.MAX_VALUE;
        int mtu = select(mask, SaPathRecord.CM_MTU_SELECTOR | SaPathRecord.CM_MTU, q.mtuSelector(), q.mtu(),
                path.mtu().code());
        int rate = selectRate(mask, q, path.rate().code());
        int life = select(mask, SaPathRecord.CM_PACKET_LIFE_TIME_SELECTOR | SaPathRecord.CM_PACKET_LIFE_TIME,
                q.packetLifeTimeSelector(), q.packetLifeTime(), path.packetLifetime());
        List<SaPathRecord> out = new ArrayList<>();
        if (wanted == 0 || mtu < 1 || rate < 1 || life < 0) {
            return out;
        }
        // pr_rcv_get_port_pair_paths: the pairs base+i <-> base+i first (Preference 0) ...
        for (int s = source.min(), d = destination.min(); out.size() < wanted; s++, d++) {
            out.add(record(path, s, d, 0, mtu, rate, life));
            if (s + 1 > source.max() || d + 1 > destination.max()) {
                break;
            }
        }
        // ... then every other pair (Preference 2), skipping those with equal offsets.
        for (int s = source.min(); s <= source.max() && out.size() < wanted; s++) {
            for (int d = destination.min(); d <= destination.max() && out.size() < wanted; d++) {
                if (s - source.min() != d - destination.min()) {
                    out.add(record(path, s, d, 2, mtu, rate, life));
                }
            }
        }
        return out;
    }

    /**
     * pr_rcv_build_pr: a fresh record (ServiceID, TClass, FlowLabel, HopLimit, QoSClass zero on
     * one subnet); num_path 0x80: Reversible, NumbPath 0; selectors "exactly".
     */
    private static SaPathRecord record(PathRecord path, int slid, int dlid, int preference, int mtu, int rate, int life) {
        return new SaPathRecord(0, path.destinationGid(), path.sourceGid(), dlid, slid, false, 0, 0, 0, true, 0,
                path.pkey().value(), 0, path.serviceLevel(), Selector.EXACTLY, mtu, Selector.EXACTLY, rate,
                Selector.EXACTLY, life, preference);
    }

    /**
     * The MTU or PacketLifeTime selector (both components given, else ignored): the value the path
     * gets, or -1 (MTU: 0) when the selector disqualifies it. Greater than: the path's value only
     * when above; less than: the path's when below, else the highest below the one asked (none
     * when 1 is asked); exactly: lowered to the one asked when the path's is at
     * least that; largest (MTU) or smallest (lifetime) available: the path's.
     */
    private static int select(long mask, long components, Selector selector, int required, int value) {
        if (!both(mask, components)) {
            return value;
        }
        return switch (selector) {
            case GREATER_THAN -> value > required ? value : -1;
            case LESS_THAN -> value < required ? value : required > 1 ? required - 1 : -1;
            case EXACTLY -> value < required ? -1 : required;
            case LARGEST_AVAILABLE -> value;
        };
    }

    /**
     * The rate selector (osm_sa_path_record.c:527-565), in OpenSM's speed order: greater than;
     * less than (the next lower rate than the one asked, ib_path_rate_get_prev, when the path is
     * not below it); exactly (only the path's own rate: a rate is never lowered to match);
     * largest available. 0 when the selector disqualifies the path.
     */
    private static int selectRate(long mask, SaPathRecord q, int rate) {
        if (!both(mask, SaPathRecord.CM_RATE_SELECTOR | SaPathRecord.CM_RATE)) {
            return rate;
        }
        int required = q.rate();
        return switch (q.rateSelector()) {
            case GREATER_THAN -> RANK[rate] > RANK[required] ? rate : 0;
            case LESS_THAN -> RANK[rate] < RANK[required] ? rate : previous(required);
            case EXACTLY -> RANK[rate] == RANK[required] ? required : 0;
            case LARGEST_AVAILABLE -> rate;
        };
    }

    /** ib_path_rate_get_prev: the rate code one rank slower, 0 below 2.5 Gb/s. */
    static int previous(int rate) {
        if (rate <= MIN_RATE || rate > MAX_RATE) {
            return 0;
        }
        int rank = RANK[rate] - 1;
        for (int code = MIN_RATE; code <= MAX_RATE; code++) {
            if (RANK[code] == rank) {
                return code;
            }
        }
        return 0;
    }

    private static boolean both(long mask, long components) {
        return (mask & components) == components;
    }
}
