package ipoib.mcast.internal;

import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.sa.JoinOrCreate;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * SA requests of one link: each answer (or the link's join timeout, on the control loop's clock)
 * is handed to the control loop, and failures are read the way the join machine needs them.
 */
final class SaRequests {

    /** The outcome of an SA request, on the control loop: a value, or the failure. */
    @FunctionalInterface
    interface Outcome<T> {
        void accept(T value, Throwable failure);
    }

    private final ControlLoop control;
    private final int timeoutMillis;
    private final BooleanSupplier closed;

    SaRequests(ControlLoop control, int timeoutMillis, BooleanSupplier closed) {
        this.control = control;
        this.timeoutMillis = timeoutMillis;
        this.closed = closed;
    }

    /**
     * Issues a request; its outcome runs on the control loop once, whichever of answer and timeout
     * comes first. A provider that is going away may throw instead of failing the stage: same outcome.
     */
    <T> void call(Supplier<CompletionStage<T>> request, Outcome<T> outcome) {
        boolean[] done = {false}; // control loop only
        Cancellable timeout = control.schedule(() -> finish(done, outcome, null,
                new TimeoutException("no answer within " + timeoutMillis + " ms")), timeoutMillis, TimeUnit.MILLISECONDS);
        CompletionStage<T> stage;
        try {
            stage = request.get();
        } catch (RuntimeException e) {
            control.execute(() -> {
                timeout.cancel();
                finish(done, outcome, null, e);
            });
            return;
        }
        stage.whenComplete((value, failure) -> control.execute(() -> {
            timeout.cancel();
            finish(done, outcome, value, failure);
        }));
    }

    private <T> void finish(boolean[] done, Outcome<T> outcome, T value, Throwable failure) {
        if (done[0] || closed.getAsBoolean()) {
            return;
        }
        done[0] = true;
        outcome.accept(value, failure == null ? null : unwrap(failure));
    }

    /** A failure as a log line says it. */
    String describe(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof TimeoutException) {
            return "no answer within " + timeoutMillis + " ms";
        }
        return String.valueOf(cause.getMessage());
    }

    /** The SA says the group does not exist ({@link JoinOrCreate#noSuchGroup}). */
    static boolean noSuchGroup(Throwable failure) {
        return JoinOrCreate.noSuchGroup(failure);
    }

    /**
     * A non-full join (send-only, NonMember) of a group that does not exist: OpenSM 3.3.23 checks
     * the join state before the components and answers ERR_REQ_INVALID (ERR 1B10,
     * osm_sa_mcmember_record.c:1249); older SAs answer insufficient components or no records.
     */
    static boolean absentForNonFullJoin(Throwable failure) {
        return noSuchGroup(failure) || unwrap(failure) instanceof SaException sa && !sa.isTimeout()
                && !sa.isLocalFailure() && sa.status() == SaStatus.REQUEST_INVALID;
    }

    /**
     * A leave the SA refuses because the port is no member (any more): the group was deleted, or
     * the SM forgot the join. OpenSM answers ERR_REQ_INVALID to both; older SAs ERR_NO_RECORDS.
     * Leaving again would not help: the membership is gone.
     */
    static boolean notAMember(Throwable failure) {
        return noSuchGroup(failure) || unwrap(failure) instanceof SaException sa && !sa.isTimeout()
                && sa.status() == SaStatus.REQUEST_INVALID;
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
