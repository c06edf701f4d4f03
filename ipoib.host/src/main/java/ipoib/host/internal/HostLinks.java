package ipoib.host.internal;

import ipoib.api.link.IpoibLink;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/** The links the host sends on, by name, and sorted by name for the route search. */
final class HostLinks {
    private final ConcurrentHashMap<String, IpoibLink> byName = new ConcurrentHashMap<>();
    private volatile IpoibLink[] sorted = new IpoibLink[0];

    void add(IpoibLink link) {
        byName.put(link.name(), link);
        resort();
    }

    void remove(IpoibLink link) {
        byName.remove(link.name(), link);
        resort();
    }

    private synchronized void resort() {
        IpoibLink[] all = byName.values().toArray(new IpoibLink[0]);
        Arrays.sort(all, Comparator.comparing(IpoibLink::name));
        sorted = all;
    }

    /** The link of that name, or null. */
    IpoibLink get(String name) {
        return name == null ? null : byName.get(name);
    }

    /** The links sorted by name (a snapshot; no copy). */
    IpoibLink[] sorted() {
        return sorted;
    }

    List<IpoibLink> all() {
        return List.of(sorted);
    }
}
