package ipoib.netdev.internal;

import ipoib.api.Gid;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.runtime.ManualClock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.net.InetAddress;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.Function;

/**
 * A {@link Bridge} between a device that records what is written to it and replays packets to
 * read, and a link, resolvers and multicast manager that record what the bridge sends and joins;
 * time on a {@link ManualClock}.
 */
final class BridgeHarness {
    final ManualClock clock = new ManualClock();
    final FakeDevice device;
    /** Packets the bridge handed to the stack (unicast, multicast or broadcast), copied. */
    final List<byte[]> sent = new ArrayList<>();
    final List<InetAddress> joins = new ArrayList<>();
    final List<String> warnings = new ArrayList<>();
    /** What the stack's Neighbor Discovery receiver got: the ICMPv6 type of each message. */
    final List<Integer> neighborDiscovery = new ArrayList<>();
    /** The stack path each packet to the fabric took, in order: "unicast", "multicast" or "broadcast". */
    final List<String> paths = new ArrayList<>();
    /** What a listener join completes with: null for success, else the failure. */
    volatile Function<InetAddress, Throwable> joinOutcome = g -> null;
    final IpoibLink link = proxy(IpoibLink.class, (p, m, a) -> switch (m.getName()) {
        case "name" -> "ib0_1_ffff";
        case "state" -> LinkState.UP;
        case "mtu" -> 2044;
        case "sendBroadcast" -> record("broadcast", (MemorySegment) a[1]);
        default -> m.isDefault() ? InvocationHandler.invokeDefault(p, m, a) : null;
    });
    final Bridge bridge;

    BridgeHarness(boolean offload) {
        device = new FakeDevice(offload);
        StackAdapter stack = new StackAdapter(link);
        NeighbourResolver resolver = proxy(NeighbourResolver.class, (p, m, a) -> m.getName().equals("send")
                ? record("unicast", (MemorySegment) a[a.length - 1]) : null);
        stack.ipv4 = resolver;
        stack.ipv6 = resolver;
        stack.multicast = proxy(MulticastService.class, (p, m, a) -> switch (m.getName()) {
            case "send" -> record("multicast", (MemorySegment) a[3]);
            case "joinListener" -> join((InetAddress) a[1]);
            case "leaveListener" -> CompletableFuture.completedFuture(null);
            default -> null;
        });
        stack.neighborDiscovery = (l, frame, type) -> neighborDiscovery.add(type);
        bridge = new Bridge(device, "rbib0", stack, warnings::add, clock);
    }

    private TransmitResult record(String path, MemorySegment packet) {
        paths.add(path);
        sent.add(packet.toArray(ValueLayout.JAVA_BYTE));
        return TransmitResult.SENT;
    }

    private CompletionStage<?> join(InetAddress group) {
        joins.add(group);
        Throwable failure = joinOutcome.apply(group);
        return failure == null ? CompletableFuture.completedFuture(null) : CompletableFuture.failedFuture(failure);
    }

    /** The kernel sends {@code packet} (after {@code vnetHeader} with offload): the bridge reads it once. */
    void fromKernel(byte[] vnetHeader, byte[] packet) {
        device.toRead.add(concat(vnetHeader, packet));
        bridge.readable();
    }

    void fromKernel(byte[] packet) {
        fromKernel(new byte[device.headerLength()], packet);
    }

    /** The fabric delivers {@code packet} (IPv6 or IPv4 by its version) at an offset in a larger buffer. */
    void fromFabric(byte[] packet) {
        byte[] framed = concat(new byte[44], packet); // as a receive buffer: GRH and IPoIB header first
        int etherType = (packet[0] >>> 4 & 0xF) == 6 ? 0x86DD : 0x0800;
        bridge.fromLink(new Frame(etherType, MemorySegment.ofArray(framed), 44, packet.length));
    }

    /** A received frame as the link hands it over: its payload at an offset of the receive buffer. */
    record Frame(int etherType, MemorySegment buffer, long payloadOffset, int payloadLength) implements ReceivedFrame {
        @Override public int sourceQpn() { return 2; }
        @Override public int sourceLid() { return 2; }
        @Override public boolean grhPresent() { return false; }
        @Override public Gid sourceGid() { return null; }
        @Override public Gid destinationGid() { return null; }
        @Override public boolean multicast() { return false; }
    }

    long counter(String name) {
        Long v = bridge.counters().get(name);
        if (v == null) {
            throw new AssertionError("no counter " + name + " in " + bridge.counters());
        }
        return v;
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] out = new byte[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /** An implementation of {@code type} by {@code handler}, with Object's methods by identity. */
    @SuppressWarnings("unchecked")
    private static <T> T proxy(Class<T> type, InvocationHandler handler) {
        InvocationHandler withObjectMethods = (p, m, a) -> switch (m.getName()) {
            case "hashCode" -> m.getParameterCount() == 0 ? System.identityHashCode(p) : handler.invoke(p, m, a);
            case "equals" -> m.getParameterCount() == 1 ? p == a[0] : handler.invoke(p, m, a);
            case "toString" -> m.getParameterCount() == 0 ? type.getSimpleName() : handler.invoke(p, m, a);
            default -> handler.invoke(p, m, a);
        };
        return (T) Proxy.newProxyInstance(BridgeHarness.class.getClassLoader(), new Class<?>[] {type}, withObjectMethods);
    }

    /** A device whose reads replay {@link #toRead} and whose writes are recorded in {@link #written}. */
    static final class FakeDevice implements PacketDevice {
        final boolean offload;
        final Deque<byte[]> toRead = new ArrayDeque<>();
        final List<byte[]> written = new ArrayList<>();

        FakeDevice(boolean offload) {
            this.offload = offload;
        }

        @Override public String name() { return "ipb0123456789"; }
        @Override public boolean offload() { return offload; }
        @Override public int headerLength() { return offload ? VnetHeader.LENGTH : 0; }
        @Override public boolean isClosed() { return false; }

        @Override
        public int read(long address, int capacity) {
            byte[] p = toRead.poll();
            if (p == null) {
                return -1;
            }
            MemorySegment.copy(p, 0, MemorySegment.ofAddress(address).reinterpret(capacity), ValueLayout.JAVA_BYTE, 0,
                    p.length);
            return p.length;
        }

        @Override
        public boolean write(long address, int length) {
            written.add(MemorySegment.ofAddress(address).reinterpret(length).toArray(ValueLayout.JAVA_BYTE));
            return true;
        }

        @Override
        public boolean write(long headerAddress, long address, int length) {
            return write(address, length);
        }

        @Override
        public boolean write(long headerAddress, long headersAddress, int headersLength, long restAddress, int restLength) {
            byte[] p = new byte[headersLength + restLength];
            MemorySegment.copy(MemorySegment.ofAddress(headersAddress).reinterpret(headersLength), ValueLayout.JAVA_BYTE, 0,
                    p, 0, headersLength);
            MemorySegment.copy(MemorySegment.ofAddress(restAddress).reinterpret(restLength), ValueLayout.JAVA_BYTE, 0,
                    p, headersLength, restLength);
            written.add(p);
            return true;
        }
    }
}
