package ipoib.netdev.internal;

import ipoib.api.host.AddressState;
import ipoib.api.host.InterfaceAddress;
import ipoib.runtime.Clock;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.osgi.framework.BundleContext;

/**
 * One bridged interface: the TUN device (opened in its namespace under its name), its
 * configuration through {@link IpRoute}, the {@link Bridge} data path, and the reconciliation
 * of addresses and MTU ({@link #sync()}, run every few seconds):
 * <ul>
 *   <li>the device MTU follows the link MTU;</li>
 *   <li>the device's multicast list becomes listener joins and leaves (with the IGMP/MLD reports
 *       {@link Membership} reads, as Linux ipoib's set_rx_mode);</li>
 *   <li>addresses the kernel has on the device go into the stack's address table (origin
 *       MANUAL), so that ARP and ND answer for them; gone from the kernel, they leave the table;</li>
 *   <li>the stack's own addresses of the link (configured ones, the RFC 4391 §8 link-local
 *       address Neighbor Discovery made) are put on the device once usable (IPv6: after the
 *       stack's duplicate address detection), so the kernel uses the same link-local address
 *       the stack announces.</li>
 * </ul>
 */
final class NetDevice implements AutoCloseable {
    private final String device;
    private final String netns;
    private final StackAdapter stack;
    private final Consumer<String> warn;
    private final Tun tun;
    /** The device's addresses and groups, read in the process (no {@code ip} per reconciliation). */
    private final KernelState kernel;
    private final Bridge bridge;
    private final AutoCloseable receiving;
    private final AutoCloseable metrics;
    /** Addresses this device put into the stack's table (from the kernel). */
    private final Set<InetAddress> fromKernel = new HashSet<>();
    /** Addresses this device put on the kernel device (from the stack). */
    private final Set<InetAddress> fromStack = new HashSet<>();
    private volatile List<Cidr> kernelAddresses = List.of();
    private int mtu;
    private volatile String lastError;
    private boolean closed;
    /** The carrier last set: null until the first {@link #sync} sets it from the interface's state. */
    private Boolean carrierOn;

    private NetDevice(String device, String netns, StackAdapter stack, Consumer<String> warn, Tun tun,
                      KernelState kernel, BundleContext context) throws IOException {
        this.device = device;
        this.netns = netns;
        this.stack = stack;
        this.warn = warn;
        this.tun = tun;
        this.kernel = kernel;
        this.bridge = new Bridge(tun, device, stack, warn, Clock.SYSTEM);
        this.receiving = stack.receive(context, device, netns, bridge);
        this.metrics = stack.publishCounters(context, device, bridge::counters);
        try {
            bridge.start(tun.descriptor());
        } catch (IOException | RuntimeException e) {
            try {
                metrics.close();
                receiving.close();
            } catch (Exception closing) {
                e.addSuppressed(closing);
            }
            throw e;
        }
    }

    /**
     * Creates the device, in {@code netns} when not null (created when missing, adopted from a
     * killed appliance), with {@code addresses} and checksum and TCP segmentation offload when
     * {@code offload}, up. When {@code parked} is the same device (namespace, name, offload) it
     * is taken back instead, with the addresses and routes it kept, and its carrier comes on.
     *
     * @throws IOException naming what failed (the privilege missing, or the {@code ip} command and its output)
     */
    static NetDevice open(BundleContext context, StackAdapter stack, String device, String netns,
                          List<Cidr> addresses, boolean offload, ParkedDevices.Parked parked, Consumer<String> warn,
                          Consumer<String> info) throws IOException {
        Tun tun = null;
        KernelState kernel = null;
        try {
            String missing = Tun.missingPrivilege();
            if (missing != null) {
                throw new IOException("cannot create network device " + device + ": " + missing);
            }
            if (netns != null) {
                Namespaces.acquire(netns, info);
            }
            List<String> kept = null;
            if (parked != null) {
                try {
                    tun = Tun.reopen(parked.descriptor(), device, offload);
                    kept = parked.fromStack();
                } catch (IOException e) {
                    warn.accept(device + ": the device kept open is gone (" + e.getMessage() + "): creating it again");
                }
            }
            int linkMtu = stack.mtu();
            if (tun == null) {
                tun = create(device, netns, offload, addresses, linkMtu, warn);
            } else {
                List<Cidr> present = parse(IpRoute.addresses(netns, device));
                List<String> lines = new ArrayList<>();
                for (Cidr a : addresses) {
                    if (!present.contains(a)) {
                        lines.add(addCommand(device, a));
                    }
                }
                lines.add("link set dev " + device + " up");
                IpRoute.batch(netns, false, lines).orThrow(netns);
                linkMtu = 0;
            }
            kernel = KernelState.open(netns, device);
            NetDevice d = new NetDevice(device, netns, stack, warn, tun, kernel, context);
            d.mtu = linkMtu;
            if (kept != null) {
                for (String a : kept) {
                    d.fromStack.add(InetAddress.getByName(a));
                }
                tun.carrier(true);
            }
            return d;
        } catch (IOException | RuntimeException e) {
            if (kernel != null) {
                kernel.close();
            }
            if (tun != null) {
                tun.close();
            } else if (parked != null) {
                try {
                    Tun.reopen(parked.descriptor(), device, offload).close();
                } catch (IOException gone) {
                    // Not that device any more: nothing of it to close.
                }
            }
            throw e;
        }
    }

    /**
     * A new TUN device named {@code device}, made in {@code netns} when not null ({@link Tun#openIn}),
     * with {@code addresses}, MTU {@code mtu} (when above 0), up: one {@code ip} process.
     */
    private static Tun create(String device, String netns, boolean offload, List<Cidr> addresses, int mtu,
                              Consumer<String> warn) throws IOException {
        Tun tun = netns == null ? Tun.open(device, offload) : Tun.openIn(netns, device, offload);
        try {
            List<String> lines = new ArrayList<>();
            if (netns != null) {
                lines.add("link set dev lo up");
            }
            // The kernel makes no link-local address of its own: the stack's (RFC 4391 §8) is mirrored.
            String addrgen = "link set dev " + device + " addrgenmode none";
            lines.add(addrgen);
            for (Cidr a : addresses) {
                lines.add(addCommand(device, a));
            }
            lines.add("link set dev " + device + (mtu > 0 ? " mtu " + mtu : "") + " up");
            IpRoute.Batch batch = IpRoute.batch(netns, false, lines);
            if (batch.failed().equals(List.of(addrgen))) {
                warn.accept(device + ": IPv6 address generation stays on: " + batch.errors());
            } else {
                batch.orThrow(netns);
            }
            return tun;
        } catch (IOException | RuntimeException e) {
            tun.close();
            throw e;
        }
    }

    /** The {@code ip} command line that adds {@code a} to {@code device}. */
    private static String addCommand(String device, Cidr a) {
        // The device is NOARP: the kernel does no DAD on it anyway; the stack's ND does. (No -6 in a
        // batch line: ip takes the family from the address.)
        return "addr add " + a + " dev " + device + (a.ipv6() ? " nodad" : "");
    }

    private static void addToKernel(String netns, String device, Cidr a) throws IOException {
        IpRoute.batch(netns, false, List.of(addCommand(device, a))).orThrow(netns);
    }

    String device() {
        return device;
    }

    /** The namespace, or null for the appliance's own. */
    String netns() {
        return netns;
    }

    String linkName() {
        return stack.linkName();
    }

    Bridge bridge() {
        return bridge;
    }

    List<Cidr> kernelAddresses() {
        return kernelAddresses;
    }

    int mtu() {
        return mtu;
    }

    /** The last error of a reconciliation, or null. */
    String lastError() {
        return lastError;
    }

    /** Reconciles MTU and addresses (see the class comment); errors are kept for the listing and logged once. */
    synchronized void sync() {
        if (closed || tun.isClosed()) {
            return;
        }
        try {
            carrier(stack.up());
            int linkMtu = stack.mtu();
            boolean newMtu = linkMtu > 0 && linkMtu != mtu;
            if (newMtu) {
                IpRoute.batch(netns, false, List.of("link set dev " + device + " mtu " + linkMtu)).orThrow(netns);
                mtu = linkMtu;
            }
            IpRoute.State state = kernel.read();
            List<Cidr> kernel = parse(state.addresses());
            List<InterfaceAddress> table = stack.addresses();
            Set<InetAddress> inTable = new HashSet<>();
            for (InterfaceAddress a : table) {
                inTable.add(a.address());
            }
            Set<InetAddress> inKernel = new HashSet<>();
            for (Cidr c : kernel) {
                inKernel.add(c.address());
            }
            for (Cidr c : kernel) {
                // An address the stack put there and has not made again yet (after a restart) is not the kernel's.
                if (!inTable.contains(c.address()) && !fromStack.contains(c.address())
                        && stack.addAddress(c.address(), c.prefixLength())) {
                    fromKernel.add(c.address());
                }
            }
            for (InetAddress a : List.copyOf(fromKernel)) {
                if (!inKernel.contains(a)) {
                    stack.removeAddress(a);
                    fromKernel.remove(a);
                }
            }
            for (InterfaceAddress a : table) {
                // Only once usable: an IPv6 address is the kernel's after the stack's DAD passed.
                if (!stack.isKernelOrigin(a) && a.state().usable() && !inKernel.contains(a.address())) {
                    addToKernel(netns, device, new Cidr(a.address(), a.prefixLength()));
                    fromStack.add(a.address());
                    kernel = new ArrayList<>(kernel);
                    kernel.add(new Cidr(a.address(), a.prefixLength()));
                }
            }
            for (InetAddress a : List.copyOf(fromStack)) {
                if (!inTable.contains(a)) {
                    Cidr gone = kernel.stream().filter(c -> c.address().equals(a)).findFirst().orElse(null);
                    if (gone != null) {
                        IpRoute.batch(netns, false, List.of("addr del " + gone + " dev " + device)).orThrow(netns);
                        kernel = new ArrayList<>(kernel);
                        kernel.remove(gone);
                    }
                    fromStack.remove(a);
                }
            }
            kernelAddresses = List.copyOf(kernel);
            bridge.membership().reconcile(state.groups());
            bridge.broadcasts(kernel.stream().mapToInt(Cidr::broadcast4).filter(b -> b != 0).toArray());
            lastError = null;
        } catch (IOException | RuntimeException e) {
            if (!e.getMessage().equals(lastError)) {
                warn.accept(device + ": " + e.getMessage());
            }
            lastError = e.getMessage();
        }
    }

    /**
     * The device's carrier follows the interface, as Linux's ib_ipoib turns its carrier on once the
     * broadcast group is joined and off when the interface goes down (ipoib_multicast.c
     * {@code ipoib_mcast_carrier_on_task}, ipoib_ib.c {@code ipoib_ib_dev_down}): without it
     * the kernel's routes and a bonding driver above would not see a link that went away.
     */
    private void carrier(boolean up) throws IOException {
        if (carrierOn == null || carrierOn != up) {
            tun.carrier(up);
            carrierOn = up;
        }
    }

    /**
     * Why the device is not yet what the stack has (null when it is): its carrier off while the
     * interface is UP, an address of the interface still TENTATIVE (Neighbor Discovery's check),
     * or a usable address not yet in the kernel; with {@code linkLocal}, no IPv6 link-local
     * address yet (the nd bundle adds it when the interface comes UP).
     */
    synchronized String pending(boolean linkLocal) {
        if (!Boolean.TRUE.equals(carrierOn)) {
            return "carrier off";
        }
        boolean hasLinkLocal = false;
        for (InterfaceAddress a : stack.addresses()) {
            if (a.state() == AddressState.TENTATIVE) {
                return a.address().getHostAddress() + " tentative (duplicate address detection)";
            }
            if (a.state().usable() && !stack.isKernelOrigin(a)
                    && kernelAddresses.stream().noneMatch(c -> c.address().equals(a.address()))) {
                return a.address().getHostAddress() + " not in the kernel yet";
            }
            hasLinkLocal |= a.address().isLinkLocalAddress() && a.address() instanceof java.net.Inet6Address;
        }
        return linkLocal && !hasLinkLocal ? "no IPv6 link-local address yet" : null;
    }

    private static List<Cidr> parse(List<String> texts) {
        Set<Cidr> result = new LinkedHashSet<>();
        for (String t : texts) {
            try {
                result.add(Cidr.parse(t));
            } catch (IllegalArgumentException ignored) {
                // Not a unicast address the stack could own.
            }
        }
        return List.copyOf(result);
    }

    /** The counters of the data path. */
    Map<String, Long> counters() {
        return bridge.counters();
    }

    /**
     * Keeps the device for the next component of its configuration ({@link ParkedDevices}): no more
     * frames to or from it, its multicast listeners leave, the kernel's addresses leave the
     * stack's table, and its carrier goes off; the descriptor stays open, so the kernel keeps the
     * device with its addresses and routes.
     */
    synchronized ParkedDevices.Parked park(String link) {
        detach();
        try {
            tun.carrier(false);
        } catch (IOException e) {
            warn.accept(e.getMessage());
        }
        closed = true;
        kernel.close();
        List<String> stackAddresses = new ArrayList<>();
        for (InetAddress a : fromStack) {
            stackAddresses.add(a.getHostAddress().replaceFirst("%.*", ""));
        }
        return new ParkedDevices.Parked(tun.descriptor(), netns == null ? "" : netns, device, tun.offload(), link,
                List.copyOf(stackAddresses));
    }

    /**
     * Removes the device: no more frames to it, its multicast listeners leave, its addresses leave
     * the stack's table, and the descriptor closes (the kernel deletes the device). The namespace
     * stays: its owner removes it ({@link Namespaces#release}).
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        detach();
        closed = true;
        kernel.close();
        tun.close();
    }

    /** Stops the data path in both directions and takes the device's state out of the stack. */
    private void detach() {
        if (closed) {
            return;
        }
        try {
            metrics.close();
            receiving.close();
        } catch (Exception e) {
            warn.accept(device + ": " + e.getMessage());
        }
        bridge.stop();
        bridge.membership().leaveAll();
        for (InetAddress a : fromKernel) {
            stack.removeAddress(a);
        }
        fromKernel.clear();
    }
}
