package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import ipoib.api.link.LinkPath;
import ipoib.api.verbs.AddressHandle;
import ipoib.link.internal.cm.CmLinkConnection;
import java.util.concurrent.CompletableFuture;

/**
 * One destination in a link's {@link PathCache} (Linux's {@code struct ipoib_path}): the
 * PathRecord, the address handle built from it and how many references the users hold. The
 * cache changes the fields under its own lock; senders read {@link #handle} without locks.
 */
public final class PathEntry {
    final PathCache cache;
    final Gid destination;
    final boolean serviceLevelFromPath;
    /** Completes with the first usable handle, or exceptionally when the first query fails. */
    final CompletableFuture<PathEntry> ready = new CompletableFuture<>();

    /** The handle senders use; null while the first query runs and after the entry died. */
    volatile AddressHandle handle;
    public volatile PathRecord record;
    public volatile int serviceLevel;
    /**
     * The connected-mode connection to this destination, as Linux's path holds its CM transmit
     * context; null in datagram mode and until the first frame to a peer with the RC flag.
     */
    public volatile CmLinkConnection connection;

    // Guarded by the cache.
    int references;
    int generation;
    boolean querying;
    boolean dead;

    PathEntry(PathCache cache, Gid destination, boolean serviceLevelFromPath) {
        this.cache = cache;
        this.destination = destination;
        this.serviceLevelFromPath = serviceLevelFromPath;
    }

    /**
     * The handle to post buffer {@code index} with, published in {@code slots} first so that the
     * reaper sees it (see {@link SendHandles}); null when the entry died (the slot is cleared).
     */
    AddressHandle handleFor(SendHandles slots, int index) {
        AddressHandle h = handle;
        while (h != null) {
            slots.set(index, h);
            AddressHandle again = handle;
            if (again == h) {
                return h;
            }
            h = again;
        }
        slots.clear(index);
        return null;
    }

    /** A user's reference: released once, whatever the user does. */
    public static final class Reference implements LinkPath {
        public final PathEntry entry;
        private volatile boolean released;

        Reference(PathEntry entry) {
            this.entry = entry;
        }

        @Override
        public Gid destination() {
            return entry.destination;
        }

        @Override
        public PathRecord record() {
            return entry.record;
        }

        @Override
        public int serviceLevel() {
            return entry.serviceLevel;
        }

        @Override
        public boolean valid() {
            return !released && entry.handle != null;
        }

        boolean released() {
            return released;
        }

        @Override
        public void refresh() {
            if (!released) {
                entry.cache.refresh(entry);
            }
        }

        @Override
        public void release() {
            synchronized (this) {
                if (released) {
                    return;
                }
                released = true;
            }
            entry.cache.release(entry);
        }

        @Override
        public String toString() {
            PathRecord r = entry.record;
            return "path to " + entry.destination + (r == null ? " (pending)" : " LID " + r.destinationLid())
                    + (released ? " (released)" : "");
        }
    }
}
