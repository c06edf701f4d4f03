package ipoib.neighbour;

/**
 * The engine's knobs, validated by the component that reads them from its configuration.
 *
 * @param retransmitMillis time between solicitations of one resolution attempt
 * @param maxSolicitations broadcast/multicast solicitations before INCOMPLETE becomes FAILED
 * @param unicastProbes unicast probes of a STALE entry before it is solicited by broadcast
 * @param queueLength frames queued per neighbour while it resolves (Linux keeps 3)
 * @param maxEntries entries per link
 * @param revalidateMillis age of the last confirmation after which a used entry is revalidated
 * @param idleMillis an entry neither used nor confirmed for this long is removed
 * @param failedHoldMillis a FAILED entry answers "no route" this long before it may be retried
 * @param pathTimeoutMillis a PathRecord lookup that takes longer fails
 * @param serviceLevelFromPath the SL of unicast: the PathRecord's (true) or the broadcast group's
 */
public record Settings(int retransmitMillis, int maxSolicitations, int unicastProbes, int queueLength, int maxEntries,
                       long revalidateMillis, long idleMillis, long failedHoldMillis, long pathTimeoutMillis,
                       boolean serviceLevelFromPath) {

    /** Defaults close to Linux's (retrans 1 s, 3 probes, queue 3) with RFC 4391 §9.4 revalidation every 30 s. */
    public static final Settings DEFAULTS = new Settings(1000, 3, 1, 3, 1024, 30_000, 300_000, 3_000, 30_000, false);

    /**
     * Settings from configuration values the component checked against its metatype
     * (ipoib.runtime ConfigCheck: each range is declared once, in the component's
     * {@code @ObjectClassDefinition}).
     *
     * @param serviceLevel {@code broadcast} or {@code path}
     */
    public static Settings of(long retransmitMillis, long requests, long unicastProbes, long queueLength,
                              long maxEntries, long revalidateMillis, long idleMillis, long failedHoldMillis,
                              long pathTimeoutMillis, String serviceLevel) {
        return new Settings((int) retransmitMillis, (int) requests, (int) unicastProbes, (int) queueLength,
                (int) maxEntries, revalidateMillis, idleMillis, failedHoldMillis, pathTimeoutMillis,
                "path".equals(serviceLevel.strip()));
    }

    /** The tick of the engine's timer: fine enough for the shortest interval. */
    public long tickMillis() {
        long shortest = Math.min(retransmitMillis, revalidateMillis);
        if (failedHoldMillis > 0) {
            shortest = Math.min(shortest, failedHoldMillis);
        }
        return Math.max(5, shortest / 4);
    }
}
