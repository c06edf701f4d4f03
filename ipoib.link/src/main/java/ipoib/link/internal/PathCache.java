package ipoib.link.internal;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import ipoib.api.link.LinkPath;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.runtime.Clock;
import ipoib.runtime.DurationHistogram;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.IntSupplier;

/**
 * The paths of one UP period of a link (Linux's per-interface path list, {@code __path_find} and
 * {@code path_rec_start} in drivers/infiniband/ulp/ipoib/ipoib_main.c): one PathRecord query per
 * destination however many users ask, references counted, handles replaced on refresh and
 * destroyed through the {@link HandleReaper} only after their last send completed.
 */
public final class PathCache {
    private record Key(Gid destination, boolean serviceLevelFromPath) {}

    private final Function<Gid, CompletionStage<PathRecord>> query;
    private final BiFunction<PathRecord, Integer, AddressHandle> handles;
    private final IntSupplier broadcastServiceLevel;
    private final HandleReaper reaper;
    private final DurationHistogram resolutions;
    private final Map<Key, PathEntry> entries = new HashMap<>();
    private boolean closed;

    final LongAdder queries = new LongAdder();
    final LongAdder failures = new LongAdder();
    final LongAdder refreshes = new LongAdder();
    final LongAdder handleChanges = new LongAdder();

    /**
     * @param query the PathRecord query to a destination (the port's subnet administrator)
     * @param handles creates an address handle for a path and a service level
     * @param broadcastServiceLevel the broadcast group's SL (RFC 4391 §9.1.2 default of unicast)
     */
    PathCache(Function<Gid, CompletionStage<PathRecord>> query, BiFunction<PathRecord, Integer, AddressHandle> handles,
              IntSupplier broadcastServiceLevel, HandleReaper reaper) {
        this(query, handles, broadcastServiceLevel, reaper, new DurationHistogram(Clock.SYSTEM, 1));
    }

    /** @param resolutions where the time from each query to the path it found is recorded */
    PathCache(Function<Gid, CompletionStage<PathRecord>> query, BiFunction<PathRecord, Integer, AddressHandle> handles,
              IntSupplier broadcastServiceLevel, HandleReaper reaper, DurationHistogram resolutions) {
        this.resolutions = resolutions;
        this.query = query;
        this.handles = handles;
        this.broadcastServiceLevel = broadcastServiceLevel;
        this.reaper = reaper;
    }

    /** A reference to the path to a destination: now when cached, else when the query answers. */
    CompletionStage<LinkPath> acquire(Gid destination, boolean serviceLevelFromPath) {
        PathEntry entry;
        boolean start = false;
        synchronized (this) {
            if (closed) {
                return CompletableFuture.failedFuture(new IllegalStateException("the link is not UP"));
            }
            Key key = new Key(destination, serviceLevelFromPath);
            entry = entries.get(key);
            if (entry == null) {
                entry = new PathEntry(this, destination, serviceLevelFromPath);
                entries.put(key, entry);
                start = true;
            }
            entry.references++;
        }
        if (start) {
            startQuery(entry);
        }
        PathEntry acquired = entry;
        return entry.ready.thenApply(e -> new PathEntry.Reference(acquired));
    }

    /** Queries the SA again for an entry; the current handle keeps sending meanwhile. */
    void refresh(PathEntry entry) {
        synchronized (this) {
            if (entry.dead || entry.querying || entry.handle == null) {
                return;
            }
        }
        refreshes.increment();
        startQuery(entry);
    }

    /** LIDs or the subnet manager changed: every usable path is queried again. */
    void refreshAll() {
        List<PathEntry> all;
        synchronized (this) {
            all = new ArrayList<>(entries.values());
        }
        all.forEach(this::refresh);
    }

    void release(PathEntry entry) {
        synchronized (this) {
            if (--entry.references > 0 || entry.dead) {
                return;
            }
            kill(entry);
        }
    }

    /** Removes an entry; its handle goes to the reaper. Holds this. */
    private void kill(PathEntry entry) {
        entry.dead = true;
        entries.remove(new Key(entry.destination, entry.serviceLevelFromPath), entry);
        AddressHandle h = entry.handle;
        entry.handle = null;
        reaper.retire(h);
    }

    private void startQuery(PathEntry entry) {
        int gen;
        synchronized (this) {
            if (entry.dead) {
                return;
            }
            entry.querying = true;
            gen = ++entry.generation;
        }
        queries.increment();
        long started = resolutions.start();
        CompletionStage<PathRecord> stage;
        try {
            stage = query.apply(entry.destination);
        } catch (RuntimeException e) {
            stage = CompletableFuture.failedFuture(e);
        }
        stage.whenComplete((record, failure) -> {
            if (failure == null) {
                resolutions.observeSince(started);
            }
            answered(entry, gen, record, failure);
        });
    }

    private void answered(PathEntry entry, int gen, PathRecord record, Throwable failure) {
        Throwable fail = failure == null ? null : unwrap(failure);
        boolean first;
        synchronized (this) {
            if (entry.dead || gen != entry.generation) {
                return;
            }
            entry.querying = false;
            first = entry.handle == null;
            if (fail == null) {
                try {
                    install(entry, record);
                } catch (RuntimeException e) {
                    fail = new IllegalStateException("address handle for LID " + record.destinationLid()
                            + " not created: " + e.getMessage(), e);
                }
            }
            if (fail != null) {
                failures.increment();
                if (!first) {
                    return; // A failed refresh keeps the path that works.
                }
                kill(entry);
            }
        }
        // Completed outside the lock: the users' dependent actions run here.
        if (fail != null) {
            entry.ready.completeExceptionally(fail);
        } else {
            entry.ready.complete(entry);
        }
    }

    /** Publishes the record's handle, replacing (and retiring) the old one unless it is the same. Holds this. */
    private void install(PathEntry entry, PathRecord record) {
        int sl = entry.serviceLevelFromPath ? record.serviceLevel() : broadcastServiceLevel.getAsInt();
        AddressHandle old = entry.handle;
        if (old != null && sameVector(old.vector(), record, sl)) {
            entry.record = record;
            return;
        }
        AddressHandle created = handles.apply(record, sl);
        entry.record = record;
        entry.serviceLevel = sl;
        entry.handle = created;
        if (old != null) {
            handleChanges.increment();
            reaper.retire(old);
        }
    }

    /** The unicast address vector of a path (a GRH only when the path leaves the subnet). */
    public static AddressVector vector(PathRecord path, int serviceLevel) {
        boolean global = path.hopLimit() > 1;
        return new AddressVector(path.destinationLid(), serviceLevel, path.rate(), global,
                global ? path.destinationGid() : null, path.flowLabel(), path.hopLimit(), path.trafficClass(), 0);
    }

    private static boolean sameVector(AddressVector current, PathRecord record, int sl) {
        return current != null && current.equals(vector(record, sl));
    }

    /** The usable paths by destination (one per destination). */
    synchronized Map<Gid, PathRecord> snapshot() {
        Map<Gid, PathRecord> out = new LinkedHashMap<>();
        for (PathEntry e : entries.values()) {
            PathRecord r = e.record;
            if (r != null && e.handle != null) {
                out.putIfAbsent(e.destination, r);
            }
        }
        return out;
    }

    synchronized int size() {
        return entries.size();
    }

    /** The link went down: every entry dies, waiting users are told. */
    void close(String why) {
        List<PathEntry> all;
        synchronized (this) {
            closed = true;
            all = new ArrayList<>(entries.values());
            all.forEach(this::kill);
        }
        IllegalStateException e = new IllegalStateException(why);
        all.forEach(p -> p.ready.completeExceptionally(e));
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
