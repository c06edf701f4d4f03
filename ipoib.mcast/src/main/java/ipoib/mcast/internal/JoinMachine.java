package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.event.IpoibEvents;
import ipoib.api.mcast.GroupInfo;
import ipoib.sa.JoinOrCreate;

/**
 * The join state machine of one link's groups (control loop only): brings each group's
 * membership to what its users want, one SA request at a time, with make-before-break between
 * memberships, retries with backoff, and §12's reporting of every failure.
 *
 * <p>Listener and router joins retry for as long as they are wanted, at the backoff's ceiling once
 * there, as Linux does (drivers/infiniband/ulp/ipoib/ipoib_multicast.c: {@code ipoib_mcast_join_complete}
 * schedules a failed join again through {@code __ipoib_mcast_schedule_join_thread}, which doubles
 * {@code mcast->backoff} up to {@code IPOIB_MAX_BACKOFF_SECONDS}, 16 s, and never gives up); a send-only join
 * gives up after the link's retry count and rests for the backoff, dropping frames meanwhile (Linux
 * frees a send-only group's queued frames when its join fails).
 */
final class JoinMachine {
    private final LinkContext ctx;
    private final Egress egress;
    private final GroupReport report;

    JoinMachine(LinkContext ctx, Egress egress, GroupReport report) {
        this.ctx = ctx;
        this.egress = egress;
        this.report = report;
    }

    /** Brings the group's membership to what is wanted of it, one SA request at a time. */
    void reconcile(Group g) {
        if (ctx.closed || !ctx.table.holds(g)) {
            return;
        }
        if (!ctx.up) {
            Egress.dropQueued(g, ctx.counters.droppedLinkDown);
            return;
        }
        if (g.phase != Group.Phase.IDLE) {
            return;
        }
        JoinState want = g.wanted(ctx.sendOnlyState());
        JoinState have = g.held;
        if (want == have) {
            if (want != null && !g.sendable) {
                egress.drain(g);
            }
            if (want == null && g.idle() && g.existence == Group.Existence.UNKNOWN) {
                ctx.table.forget(g);
            }
            return;
        }
        if (want == null) {
            leave(g, have);
            return;
        }
        if (LinkContext.isSendOnly(want)) {
            if (have != null) {
                // Any membership sends: nothing to join.
                egress.drain(g);
                return;
            }
            if (!ctx.capabilitiesKnown()) {
                return; // which send-only state is being asked of the SA; reconciled when it answers
            }
            if (want == JoinState.SEND_ONLY_FULL_MEMBER) {
                // Creates the group when it is missing: nothing to ask first, and an absence
                // cached earlier does not matter.
                if (ctx.broadcastRecord != null) {
                    join(g, want, null);
                }
                return;
            }
            // §10 asks the SA whether the group exists; the send-only join is that question (a
            // missing group answers ERR_REQ_INVALID from OpenSM, ERR 1B10, or
            // ERR_REQ_INSUFFICIENT_COMPONENTS from older SAs) and needs no visibility of
            // other members, which an SA hides from an untrusted requester's group query.
            if (g.existence == Group.Existence.ABSENT) {
                egress.reroute(g);
            } else {
                join(g, want, null);
            }
            return;
        }
        if (want == JoinState.FULL_MEMBER && ctx.broadcastRecord == null) {
            return; // the create template is being fetched; reconciled when it comes
        }
        join(g, want, have);
    }

    /**
     * §10: "check with the SA ... for a MCMemberRecord that matches the MGID", for an egress
     * decision asked without a frame (sending joins at once instead).
     */
    void lookup(Group g) {
        if (g.lookupInFlight) {
            return;
        }
        g.lookupInFlight = true;
        ctx.counters.lookups.increment();
        int lg = ++g.lookupGeneration;
        int e = ctx.epoch;
        Mgid mgid = g.mgid;
        var admin = ctx.sa;
        ctx.requests.call(() -> admin.group(mgid), (found, failure) -> {
            if (e != ctx.epoch || lg != g.lookupGeneration || !ctx.table.holds(g)) {
                return;
            }
            g.lookupInFlight = false;
            if (failure != null) {
                ctx.logFailure(ctx.name + ": lookup of " + g.mgid + LinkContext.describeAddress(g) + " failed: "
                        + ctx.requests.describe(failure));
                g.completeExistence(Group.Existence.UNKNOWN);
                return;
            }
            g.existence = found.isPresent() ? Group.Existence.EXISTS : Group.Existence.ABSENT;
            g.completeExistence(g.existence);
            reconcile(g);
        });
    }

    /** A join in {@code want}; on success the old membership {@code have} is left (make before break). */
    private void join(Group g, JoinState want, JoinState have) {
        g.phase = Group.Phase.JOINING;
        g.requested = want;
        int t = ++g.token;
        int e = ctx.epoch;
        Mgid mgid = g.mgid;
        Gid self = ctx.portGid;
        var admin = ctx.sa;
        // The create components make a missing group: a listener's FullMember join, or a
        // sender's SendOnlyFullMember join where the SA supports it (LinkContext.sendOnlyState).
        McMemberRecord template = LinkContext.creates(want)
                ? JoinOrCreate.likeBroadcast(mgid, self, ctx.broadcastRecord).forMember(self, want) : null;
        long started = ctx.joinTimes.start();
        ctx.requests.call(() -> template != null ? admin.create(template) : admin.join(mgid, self, want), (record, failure) -> {
            if (failure == null) {
                ctx.joinTimes.observeSince(started);
            }
            if (e != ctx.epoch || t != g.token || !ctx.table.holds(g)) {
                if (failure == null && e == ctx.epoch && g.held != want && g.requested != want
                        && g.wanted(ctx.sendOnlyState()) != want) {
                    // Joined after all, but nobody wants that membership any more: leave it again.
                    ctx.leaveAtSa(admin, mgid, self, want, null);
                }
                return;
            }
            g.phase = Group.Phase.IDLE;
            g.requested = null;
            if (failure == null) {
                onJoined(g, want, have, record);
            } else if (!LinkContext.creates(want) && SaRequests.absentForNonFullJoin(failure)) {
                onGroupAbsent(g, want);
            } else {
                onJoinFailed(g, want, ctx.requests.describe(failure));
            }
        });
    }

    private void onJoined(Group g, JoinState want, JoinState have, McMemberRecord record) {
        try {
            ctx.attach.attach(record, want.receives());
        } catch (RuntimeException e) {
            // The link is going DOWN under us (its DOWN follows), or the attach failed (§12). The
            // link dropped the group's route, so a membership held before is no use either.
            ctx.leaveAtSa(ctx.sa, g.mgid, ctx.portGid, want, null);
            if (have != null) {
                ctx.leaveAtSa(ctx.sa, g.mgid, ctx.portGid, have, null);
                synchronized (g) {
                    g.sendable = false;
                }
                g.held = null;
                g.record = null;
            }
            onJoinFailed(g, want, "the link could not use the group: " + e.getMessage());
            return;
        }
        if (have != null && have != want) {
            ctx.leaveAtSa(ctx.sa, g.mgid, ctx.portGid, have, null);
        }
        g.held = want;
        g.record = record;
        g.sendOnlyUnused = false;
        g.idleSweeps = 0;
        g.existence = Group.Existence.EXISTS;
        g.failures = 0;
        g.lastFailure = null;
        ctx.counters.joins.increment();
        g.completeExistence(Group.Existence.EXISTS);
        ctx.reporter.info(ctx.name + ": joined " + g.mgid + LinkContext.describeAddress(g) + " as " + want + " (MLID "
                + record.mlid() + ")");
        ctx.reporter.event(IpoibEvents.GROUP_JOINED, ctx.event(g, IpoibEvents.JOIN_STATE, want.toString()));
        egress.drain(g);
        if (want == JoinState.FULL_MEMBER) {
            GroupInfo info = report.info(g);
            for (Group.ListenerWaiter w : g.listenerWaiters) {
                w.future().complete(info);
            }
            g.listenerWaiters.clear();
        }
        reconcile(g);
    }

    /** A join without create found no group: it was deleted, or never existed. */
    private void onGroupAbsent(Group g, JoinState want) {
        g.markAbsent();
        g.failures = 0;
        g.completeExistence(Group.Existence.ABSENT);
        // Not a failure of the fabric: §10's next branch (all-routers or drop) takes the frames.
        ctx.reporter.info(ctx.name + ": " + want + " join of " + g.mgid + LinkContext.describeAddress(g)
                + ": the group does not exist");
        if (want == JoinState.NON_MEMBER) {
            g.routerWanted = false;
        }
        egress.reroute(g); // the absence stays cached (§10) until trap 66 or the audit says otherwise
    }

    /**
     * A join failed (§12: logged, rate-limited, and an event). Queued frames are freed. Listener
     * and router joins retry for as long as they are wanted; a send-only join gives up after the
     * link's retry count and rests for the backoff, dropping frames.
     */
    private void onJoinFailed(Group g, JoinState want, String why) {
        g.failures++;
        g.lastFailure = why;
        ctx.counters.joinFailures.increment();
        long backoff = ctx.backoffMillis(g.failures);
        boolean giveUp = LinkContext.isSendOnly(want) && g.failures >= ctx.retryCount;
        int failures = g.failures;
        synchronized (g) {
            // The phase first: a sender that sees the frames freed must also see the rest (or the retry).
            if (giveUp) {
                g.failures = 0;
                g.existence = Group.Existence.UNKNOWN;
                backOff(g, Group.Phase.HOLDOFF, backoff);
            } else {
                backOff(g, Group.Phase.RETRY_WAIT, backoff);
            }
            ctx.counters.droppedJoinFailed.add(g.queue.size());
            g.queue.clear();
            g.sendWanted = false;
        }
        ctx.logFailure(ctx.name + ": " + want + " join of " + g.mgid + LinkContext.describeAddress(g) + " failed (attempt "
                + failures + "): " + why + (giveUp ? "; frames to it are dropped for " + seconds(backoff)
                : "; retrying in " + seconds(backoff)));
        ctx.reporter.event(IpoibEvents.GROUP_JOIN_FAILED, ctx.event(g, IpoibEvents.REASON, why));
        // A listener's join stage stays pending: the listener stays and the join goes on at the
        // backoff's ceiling until it succeeds or the listener leaves; the event, the log line and
        // the group's state (GroupReport) are how the failure reaches the IP level (§12).
    }

    static String seconds(long millis) {
        return millis % 1000 == 0 ? millis / 1000 + " s" : millis / 1000.0 + " s";
    }

    /** Waits in {@code phase} for {@code millis}, then reconciles again (unless something else moved the group on). */
    void backOff(Group g, Group.Phase phase, long millis) {
        g.phase = phase;
        int t = g.token;
        int e = ctx.epoch;
        g.timerDueNanos = ctx.nowNanos() + millis * 1_000_000L;
        g.timer = ctx.schedule(() -> {
            if (e != ctx.epoch || t != g.token || g.phase != phase) {
                return;
            }
            g.timer = null;
            g.phase = Group.Phase.IDLE;
            reconcile(g);
        }, millis);
    }

    /** Leaves: the link stops using the group first, then the SA is told. */
    private void leave(Group g, JoinState have) {
        g.phase = Group.Phase.LEAVING;
        int t = ++g.token;
        int e = ctx.epoch;
        ctx.attach.detach(g.mgid);
        synchronized (g) {
            g.sendable = false;
        }
        g.held = null;
        g.record = null;
        ctx.leaveAtSa(ctx.sa, g.mgid, ctx.portGid, have, failure -> {
            if (e != ctx.epoch || t != g.token) {
                return;
            }
            g.phase = Group.Phase.IDLE;
            if (failure == null || SaRequests.notAMember(failure)) {
                g.leaveFailures = 0;
                ctx.counters.leaves.increment();
                ctx.reporter.info(ctx.name + ": left " + g.mgid + LinkContext.describeAddress(g) + " (" + have + ")");
                ctx.reporter.event(IpoibEvents.GROUP_LEFT, ctx.event(g, IpoibEvents.JOIN_STATE, have.toString()));
                g.completeLeaveWaiters();
                reconcile(g);
                return;
            }
            // The SA still counts the port: try again (a FullMember left behind keeps the group alive).
            g.leaveFailures++;
            ctx.counters.leaveFailures.increment();
            long backoff = ctx.backoffMillis(g.leaveFailures);
            boolean again = g.leaveFailures < ctx.retryCount;
            ctx.logFailure(ctx.name + ": leave of " + g.mgid + LinkContext.describeAddress(g) + " (" + have
                    + ") failed (attempt " + g.leaveFailures + "): " + ctx.requests.describe(failure)
                    + (again ? "; retrying in " + seconds(backoff) : "; giving up"));
            if (again && g.wanted(ctx.sendOnlyState()) == null) {
                g.held = have; // still a member as far as the SA knows
                backOff(g, Group.Phase.RETRY_WAIT, backoff);
            } else {
                g.leaveFailures = 0;
                g.completeLeaveWaiters();
                reconcile(g);
            }
        });
    }

    /** Back to "nothing known, nothing held": timer off, answers in flight stale, queue freed when counted. */
    void reset(Group g, java.util.concurrent.atomic.LongAdder dropCounter) {
        g.cancelTimer();
        g.token++;
        g.phase = Group.Phase.IDLE;
        g.requested = null;
        g.lookupInFlight = false;
        g.lookupGeneration++;
        g.completeExistence(Group.Existence.UNKNOWN);
        g.sendable = false;
        g.held = null;
        g.record = null;
        g.sendOnlyUnused = false;
        g.idleSweeps = 0;
        g.existence = Group.Existence.UNKNOWN;
        g.failures = 0;
        g.leaveFailures = 0;
        if (dropCounter != null) {
            Egress.dropQueued(g, dropCounter);
        }
        g.completeLeaveWaiters();
    }

    /** Ends whatever waits on a group that is dropped: listener joins fail, leaves are done. */
    static void failWaiters(Group g, String why) {
        for (Group.ListenerWaiter w : g.listenerWaiters) {
            w.future().completeExceptionally(new IllegalStateException(why));
        }
        g.listenerWaiters.clear();
        g.completeLeaveWaiters();
    }

}
