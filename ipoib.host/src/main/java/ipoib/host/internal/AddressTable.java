package ipoib.host.internal;

import ipoib.api.host.AddressListener;
import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import ipoib.api.resolve.AddressBits;
import ipoib.api.resolve.NextHopKind;
import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.IntPredicate;
import java.util.function.BiConsumer;

/**
 * The interface addresses by link, and for the receive path a primitive snapshot per link of
 * its usable addresses (read without locks or allocation). Changes are serialised on the table;
 * listeners are told after the lock is released. Public so that the engine can be built without
 * the framework (tests, benchmarks); the package is private to the bundle.
 */
public final class AddressTable implements InterfaceAddresses {

    /**
     * The usable addresses of one link in primitive form; as an {@link IntPredicate}, whether an
     * IPv4 address is one of their subnet broadcasts (for {@link NextHopKind#of}).
     */
    static final class Fast implements IntPredicate {
        static final Fast EMPTY = new Fast(new int[0], new int[0], new long[0], new long[0], new int[0]);
        final int[] v4;
        final int[] v4Prefix;
        final long[] v6High;
        final long[] v6Low;
        final int[] v6Prefix;

        Fast(int[] v4, int[] v4Prefix, long[] v6High, long[] v6Low, int[] v6Prefix) {
            this.v4 = v4;
            this.v4Prefix = v4Prefix;
            this.v6High = v6High;
            this.v6Low = v6Low;
            this.v6Prefix = v6Prefix;
        }

        boolean isLocal4(int address) {
            for (int a : v4) {
                if (a == address) {
                    return true;
                }
            }
            return false;
        }

        @Override
        public boolean test(int address) {
            return isBroadcast4(address);
        }

        /** Whether the address is the broadcast address of one of the link's IPv4 prefixes. */
        boolean isBroadcast4(int address) {
            for (int i = 0; i < v4.length; i++) {
                int p = v4Prefix[i];
                if (p < 31) {
                    int host = p == 0 ? -1 : (1 << (32 - p)) - 1;
                    if ((address & ~host) == (v4[i] & ~host) && (address & host) == host) {
                        return true;
                    }
                }
            }
            return false;
        }

        boolean isLocal6(long high, long low) {
            for (int i = 0; i < v6High.length; i++) {
                if (v6High[i] == high && v6Low[i] == low) {
                    return true;
                }
            }
            return false;
        }
    }

    private final Map<String, Map<InetAddress, InterfaceAddress>> byLink = new TreeMap<>();
    private final ConcurrentHashMap<String, Fast> fast = new ConcurrentHashMap<>();
    private final BiConsumer<InterfaceAddress, AddressListener.Change> listeners;

    /** A table that tells {@code listeners} of every change (after releasing its lock). */
    public AddressTable(BiConsumer<InterfaceAddress, AddressListener.Change> listeners) {
        this.listeners = listeners;
    }

    /**
     * Counts the changes of the usable addresses: a reader that saw a generation and then read
     * {@link #fast} may keep what it read while the generation stays the same.
     */
    private volatile int generation;

    /** The generation of the usable addresses (see {@link FastByLink}); changes with every change. */
    int generation() {
        return generation;
    }

    /** The usable addresses of a link in primitive form (never null). */
    Fast fast(String link) {
        Fast f = fast.get(link);
        return f == null ? Fast.EMPTY : f;
    }

    @Override
    public synchronized List<InterfaceAddress> addresses(String link) {
        List<InterfaceAddress> out = new ArrayList<>();
        for (Map.Entry<String, Map<InetAddress, InterfaceAddress>> e : byLink.entrySet()) {
            if (link == null || link.equals(e.getKey())) {
                List<InterfaceAddress> l = new ArrayList<>(e.getValue().values());
                l.sort(Comparator.comparing((InterfaceAddress a) -> a.ipv6()).thenComparing(a -> AddressBits.text(a.address())));
                out.addAll(l);
            }
        }
        return out;
    }

    @Override
    public InterfaceAddress add(String link, InetAddress address, int prefixLength, AddressOrigin origin, Instant validUntil) {
        checkLink(link);
        InetAddress plain = plain(address);
        if (origin == null) {
            throw new IllegalArgumentException("address origin must not be null");
        }
        InterfaceAddress stored;
        AddressListener.Change change;
        synchronized (this) {
            Map<InetAddress, InterfaceAddress> addresses = byLink.computeIfAbsent(link, k -> new TreeMap<>(
                    Comparator.comparing(InetAddress::getHostAddress)));
            InterfaceAddress old = addresses.get(plain);
            AddressState state = old != null ? old.state()
                    : plain instanceof Inet4Address ? AddressState.PREFERRED : AddressState.TENTATIVE;
            stored = new InterfaceAddress(link, plain, prefixLength, origin, state, validUntil);
            if (stored.equals(old)) {
                return old;
            }
            addresses.put(plain, stored);
            change = old == null ? AddressListener.Change.ADDED : AddressListener.Change.UPDATED;
            rebuild(link);
        }
        listeners.accept(stored, change);
        return stored;
    }

    @Override
    public boolean remove(String link, InetAddress address) {
        InterfaceAddress removed;
        synchronized (this) {
            Map<InetAddress, InterfaceAddress> addresses = byLink.get(link);
            removed = addresses == null || address == null ? null : addresses.remove(plain(address));
            if (removed == null) {
                return false;
            }
            if (addresses.isEmpty()) {
                byLink.remove(link);
            }
            rebuild(link);
        }
        listeners.accept(removed, AddressListener.Change.REMOVED);
        return true;
    }

    @Override
    public boolean setState(String link, InetAddress address, AddressState state) {
        InterfaceAddress changed;
        synchronized (this) {
            Map<InetAddress, InterfaceAddress> addresses = byLink.get(link);
            InterfaceAddress old = addresses == null || address == null ? null : addresses.get(plain(address));
            if (old == null) {
                return false;
            }
            if (old.state() == state) {
                return true;
            }
            changed = old.withState(state);
            addresses.put(changed.address(), changed);
            rebuild(link);
        }
        listeners.accept(changed, AddressListener.Change.STATE);
        return true;
    }

    private void rebuild(String link) {
        rebuildFast(link);
        // After the new snapshot is published: whoever sees the new generation sees the snapshot.
        generation++;
    }

    private void rebuildFast(String link) {
        Map<InetAddress, InterfaceAddress> addresses = byLink.get(link);
        if (addresses == null) {
            fast.remove(link);
            return;
        }
        List<InterfaceAddress> v4 = new ArrayList<>();
        List<InterfaceAddress> v6 = new ArrayList<>();
        for (InterfaceAddress a : addresses.values()) {
            if (a.state().usable()) {
                (a.ipv6() ? v6 : v4).add(a);
            }
        }
        int[] four = new int[v4.size()];
        int[] fourPrefix = new int[v4.size()];
        for (int i = 0; i < four.length; i++) {
            four[i] = AddressBits.ipv4(v4.get(i).address());
            fourPrefix[i] = v4.get(i).prefixLength();
        }
        long[] high = new long[v6.size()];
        long[] low = new long[v6.size()];
        int[] sixPrefix = new int[v6.size()];
        for (int i = 0; i < high.length; i++) {
            high[i] = AddressBits.high(v6.get(i).address());
            low[i] = AddressBits.low(v6.get(i).address());
            sixPrefix[i] = v6.get(i).prefixLength();
        }
        fast.put(link, new Fast(four, fourPrefix, high, low, sixPrefix));
    }

    static void checkLink(String link) {
        if (link == null || !link.matches("[A-Za-z0-9_.-]{1,32}")) {
            throw new IllegalArgumentException("invalid interface name '" + link + "': allowed 1..32 characters of A-Z a-z 0-9 _ . -");
        }
    }

    /** The address without IPv6 scope; refuses addresses an interface cannot have. */
    static InetAddress plain(InetAddress address) {
        if (address == null) {
            throw new IllegalArgumentException("address must not be null");
        }
        if (address.isMulticastAddress() || address.isAnyLocalAddress() || address.isLoopbackAddress()) {
            throw new IllegalArgumentException("invalid interface address '" + AddressBits.text(address)
                    + "': a multicast, unspecified or loopback address cannot be assigned to an interface");
        }
        byte[] b = address.getAddress();
        if (b.length == 4 && b[0] == (byte) 255 && b[1] == (byte) 255 && b[2] == (byte) 255 && b[3] == (byte) 255) {
            throw new IllegalArgumentException("invalid interface address '255.255.255.255': the limited broadcast address");
        }
        try {
            return b.length == 4 ? InetAddress.getByAddress(b) : Inet6Address.getByAddress(null, b, -1);
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /**
     * Parses {@code 10.0.0.1/24} or {@code fd00::1/64} (the prefix defaults to 32 or 64).
     *
     * @throws IllegalArgumentException naming the text and what is allowed
     */
    static InterfaceAddressSpec parseCidr(String text) {
        String t = text == null ? "" : text.strip();
        String allowed = "expected an address with an optional prefix length, e.g. 10.0.0.1/24 or fd00::1/64";
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        InetAddress address = parseAddress(addr, allowed, text);
        int max = address instanceof Inet4Address ? 32 : 128;
        int prefix = address instanceof Inet4Address ? 32 : 64;
        if (slash >= 0) {
            try {
                prefix = Integer.parseInt(t.substring(slash + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("invalid address '" + text + "': prefix length '" + t.substring(slash + 1)
                        + "' is not a number (allowed 0.." + max + ")");
            }
            if (prefix < 0 || prefix > max) {
                throw new IllegalArgumentException("invalid address '" + text + "': prefix length " + prefix
                        + " outside 0.." + max);
            }
        }
        return new InterfaceAddressSpec(plain(address), prefix);
    }

    /**
     * Parses a literal IPv4 or IPv6 address (never a host name: nothing is looked up).
     *
     * @throws IllegalArgumentException naming the text
     */
    static InetAddress parseAddress(String text, String allowed, String whole) {
        String t = text == null ? "" : text.strip();
        boolean v4 = t.matches("\\d{1,3}(\\.\\d{1,3}){3}");
        boolean v6 = t.contains(":") && t.matches("[0-9A-Fa-f:.]+");
        if (!v4 && !v6) {
            throw new IllegalArgumentException("invalid address '" + whole + "': " + allowed);
        }
        if (v4) {
            for (String part : t.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    throw new IllegalArgumentException("invalid address '" + whole + "': " + part + " is not an octet (0..255)");
                }
            }
        }
        try {
            return InetAddress.getByName(t);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException("invalid address '" + whole + "': " + allowed);
        }
    }

    /** An address and its prefix length. */
    record InterfaceAddressSpec(InetAddress address, int prefixLength) {}
}
