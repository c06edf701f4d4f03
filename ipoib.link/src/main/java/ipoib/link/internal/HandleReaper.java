package ipoib.link.internal;

import ipoib.api.verbs.AddressHandle;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * Address handles the link no longer hands to senders, destroyed once no posted send uses them
 * (Linux's dead-AH list: {@code ipoib_put_ah} → {@code ipoib_free_ah} puts the handle on
 * {@code priv->dead_ahs}; {@code __ipoib_reap_ah} destroys those whose last send completed,
 * drivers/infiniband/ulp/ipoib/ipoib_main.c and ipoib_ib.c). {@link #reap} runs on the link's
 * control thread once a second, as Linux's {@code ipoib_reap_ah} work runs every HZ.
 */
final class HandleReaper {
    private final List<AddressHandle> dead = new ArrayList<>();

    /** The handle will not be given to a sender again; destroy it when its sends completed. */
    synchronized void retire(AddressHandle handle) {
        if (handle != null) {
            dead.add(handle);
        }
    }

    /** Destroys the retired handles no send uses; returns how many are left waiting. */
    synchronized int reap(Predicate<AddressHandle> inUse) {
        dead.removeIf(h -> {
            if (inUse.test(h)) {
                return false;
            }
            closeQuietly(h);
            return true;
        });
        return dead.size();
    }

    /** The link's resources are going away: every handle goes now. */
    synchronized void closeAll() {
        dead.forEach(HandleReaper::closeQuietly);
        dead.clear();
    }

    synchronized int waiting() {
        return dead.size();
    }

    private static void closeQuietly(AddressHandle h) {
        try {
            h.close();
        } catch (RuntimeException ignored) {
            // The provider released it with its device already.
        }
    }
}
