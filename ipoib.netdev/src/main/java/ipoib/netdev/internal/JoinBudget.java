package ipoib.netdev.internal;

import ipoib.runtime.Clock;

/**
 * How many multicast joins one host may start: a token bucket of {@link #BURST} joins refilled at
 * {@link #PER_SECOND} a second. A join is an SA request and, for a new group, an IB group
 * created on the subnet; a host that forges IGMP/MLD reports must not turn them into a storm of
 * both. The kernel's real memberships still join when over budget: the device's multicast list
 * ({@link Membership#reconcile}) is followed every few seconds and retries them.
 */
final class JoinBudget {
    /** Joins a host may start at once: the groups a host joins when it comes up, and room to spare. */
    static final int BURST = 64;
    static final int PER_SECOND = 16;
    private static final long NANOS_PER_JOIN = 1_000_000_000L / PER_SECOND;

    private final Clock clock;
    /** When the bucket is full again: each join taken moves it one refill interval later. */
    private long full;

    JoinBudget(Clock clock) {
        this.clock = clock;
        this.full = clock.nanoTime();
    }

    /** Takes one join from the budget; false when there is none left now. */
    synchronized boolean tryTake() {
        long now = clock.nanoTime();
        long start = Math.max(full, now);
        if (start + NANOS_PER_JOIN - now > BURST * NANOS_PER_JOIN) {
            return false;
        }
        full = start + NANOS_PER_JOIN;
        return true;
    }
}
