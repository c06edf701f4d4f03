package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.verbs.Port;
import ipoib.codec.mcast.MulticastMapping;
import ipoib.sa.JoinOrCreate;
import ipoib.runtime.Cancellable;
import ipoib.runtime.ControlLoop;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * The FullMember join of a link's broadcast group (RFC 4391 §5): at the configured scope, or
 * searching the scopes (§4.1), creating the group when it does not exist and creation is
 * configured. Each SA request may take the join timeout, counted on the control loop's clock.
 */
final class BroadcastJoin {
    private final LinkConfig config;
    private final ControlLoop control;
    private final Consumer<String> info;

    BroadcastJoin(LinkConfig config, ControlLoop control, Consumer<String> info) {
        this.config = config;
        this.control = control;
        this.info = info;
    }

    /** The join at the configured scope, or the scope search. */
    CompletionStage<McMemberRecord> join(Port p) {
        Gid self = p.gid(0);
        PKey pkey = config.pkey().asFullMember();
        if (!config.searchScope()) {
            return joinOrCreate(p, self, MulticastMapping.broadcastGid(pkey, config.scope()), pkey);
        }
        CompletionStage<McMemberRecord> attempt = join(p, self, MulticastMapping.broadcastGid(pkey, LinkConfig.SEARCH_SCOPES[0]));
        for (int i = 1; i < LinkConfig.SEARCH_SCOPES.length; i++) {
            int scope = LinkConfig.SEARCH_SCOPES[i];
            attempt = attempt.handle((r, f) -> r != null ? CompletableFuture.completedFuture(r)
                            : join(p, self, MulticastMapping.broadcastGid(pkey, scope)))
                    .thenCompose(s -> s);
        }
        // No broadcast group at any scope: create one at the recommended link-local scope.
        return attempt.handle((r, f) -> r != null ? CompletableFuture.completedFuture(r)
                        : joinOrCreate(p, self, MulticastMapping.broadcastGid(pkey, MulticastMapping.DEFAULT_SCOPE), pkey))
                .thenCompose(s -> s);
    }

    private CompletionStage<McMemberRecord> join(Port p, Gid self, Mgid mgid) {
        return withTimeout(p.subnetAdministrator().join(mgid, self, JoinState.FULL_MEMBER));
    }

    /**
     * Joins a group, creating it when the SA says it does not exist and creation is configured
     * ({@link JoinOrCreate#joinOrCreate}: join first, then create with the port's parameters).
     */
    CompletionStage<McMemberRecord> joinOrCreate(Port p, Gid self, Mgid mgid, PKey pkey) {
        if (!config.createBroadcastGroup()) {
            return join(p, self, mgid);
        }
        return JoinOrCreate.joinOrCreate(p.subnetAdministrator(), mgid, self, () -> {
            info.accept(config.name() + ": broadcast group " + mgid + " does not exist; creating it");
            var attributes = p.attributes();
            return JoinOrCreate.newBroadcastGroup(mgid, self, pkey, attributes.activeMtu(), attributes.rate());
        }, this::withTimeout);
    }

    /** The stage, or a {@link TimeoutException} after the join timeout on the loop's clock. */
    private <T> CompletionStage<T> withTimeout(CompletionStage<T> stage) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Cancellable timer = control.schedule(() -> result.completeExceptionally(new TimeoutException()),
                config.joinTimeoutMillis(), TimeUnit.MILLISECONDS);
        stage.whenComplete((value, failure) -> {
            timer.cancel();
            if (failure != null) {
                result.completeExceptionally(unwrap(failure));
            } else {
                result.complete(value);
            }
        });
        return result;
    }

    static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
