package ipoib.mcast.internal;

import java.net.InetAddress;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The local listeners of IP groups, by interface name (control loop only). They belong to the
 * listeners, not to a registration of the link's service: when the service goes and comes back
 * (a P_Key change of a named link, a restart of the link bundle) the new registration's groups
 * are joined for the same listeners.
 */
final class ListenerBook {
    private final Map<String, Map<InetAddress, Integer>> byLink = new HashMap<>();

    void add(String link, InetAddress group) {
        byLink.computeIfAbsent(link, l -> new LinkedHashMap<>()).merge(group, 1, Integer::sum);
    }

    /** Removes one listener; false when there was none. */
    boolean remove(String link, InetAddress group) {
        Map<InetAddress, Integer> groups = byLink.get(link);
        Integer n = groups == null ? null : groups.get(group);
        if (n == null) {
            return false;
        }
        if (n > 1) {
            groups.put(group, n - 1);
        } else {
            groups.remove(group);
            if (groups.isEmpty()) {
                byLink.remove(link);
            }
        }
        return true;
    }

    /** The listeners of an interface: IP group → how many. */
    Map<InetAddress, Integer> of(String link) {
        return Map.copyOf(byLink.getOrDefault(link, Map.of()));
    }
}
