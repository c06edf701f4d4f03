package ipoib.neighbour.testing;

import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import java.net.Inet4Address;
import java.net.InetAddress;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The host's address table as the resolvers see it: IPv4 addresses are PREFERRED when added,
 * IPv6 ones TENTATIVE (DAD runs), and every change is told to the listener, as the host's table
 * tells its {@link AddressListener}s.
 */
public final class FakeAddresses implements InterfaceAddresses {
    private final Map<String, Map<InetAddress, InterfaceAddress>> byLink = new ConcurrentHashMap<>();
    private final List<AddressListener> listeners = new CopyOnWriteArrayList<>();

    public void listener(AddressListener listener) {
        listeners.add(listener);
    }

    @Override
    public List<InterfaceAddress> addresses(String linkName) {
        List<InterfaceAddress> out = new ArrayList<>();
        byLink.forEach((link, addresses) -> {
            if (linkName == null || linkName.equals(link)) {
                out.addAll(addresses.values());
            }
        });
        return out;
    }

    /** The entry of an address, or null. */
    public InterfaceAddress get(String linkName, InetAddress address) {
        Map<InetAddress, InterfaceAddress> addresses = byLink.get(linkName);
        return addresses == null ? null : addresses.get(address);
    }

    @Override
    public InterfaceAddress add(String linkName, InetAddress address, int prefixLength, AddressOrigin origin,
                                Instant validUntil) {
        Map<InetAddress, InterfaceAddress> addresses = byLink.computeIfAbsent(linkName, k -> new ConcurrentHashMap<>());
        InterfaceAddress old = addresses.get(address);
        AddressState state = old != null ? old.state()
                : address instanceof Inet4Address ? AddressState.PREFERRED : AddressState.TENTATIVE;
        InterfaceAddress stored = new InterfaceAddress(linkName, address, prefixLength, origin, state, validUntil);
        addresses.put(address, stored);
        tell(stored, old == null ? AddressListener.Change.ADDED : AddressListener.Change.UPDATED);
        return stored;
    }

    @Override
    public boolean remove(String linkName, InetAddress address) {
        Map<InetAddress, InterfaceAddress> addresses = byLink.get(linkName);
        InterfaceAddress removed = addresses == null ? null : addresses.remove(address);
        if (removed != null) {
            tell(removed, AddressListener.Change.REMOVED);
        }
        return removed != null;
    }

    @Override
    public boolean setState(String linkName, InetAddress address, AddressState state) {
        Map<InetAddress, InterfaceAddress> addresses = byLink.get(linkName);
        InterfaceAddress old = addresses == null ? null : addresses.get(address);
        if (old == null) {
            return false;
        }
        if (old.state() != state) {
            InterfaceAddress changed = old.withState(state);
            addresses.put(address, changed);
            tell(changed, AddressListener.Change.STATE);
        }
        return true;
    }

    private void tell(InterfaceAddress address, AddressListener.Change change) {
        listeners.forEach(l -> l.addressChanged(address, change));
    }
}
