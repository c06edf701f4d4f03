package ipoib.netdev.internal;

import ipoib.api.host.NeighborDiscoveryReceiver;
import ipoib.api.link.EtherType;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NextHopKind;
import ipoib.codec.Wire;
import ipoib.codec.ip.IpVersion;
import ipoib.codec.ip.Ipv4Header;
import ipoib.codec.ip.Ipv6Header;
import ipoib.codec.ip.Ipv6HeaderChain;
import ipoib.runtime.Clock;
import ipoib.runtime.Counters;
import ipoib.runtime.RateLimiter;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;
import java.util.function.IntPredicate;

/**
 * The data path between a TUN device and an IPoIB link.
 *
 * <p>Kernel to fabric (a {@link DescriptorPoller} thread, shared by many devices, calls
 * {@link #readable()} when the device has packets; it reads up to {@value #READ_BUDGET} into that
 * thread's {@link ReadBuffers}): each packet read from the device is sent by the stack. The device has no link-layer header and is point-to-point, so the next hop is
 * the destination, on-link (as the host layer's routing), and it leaves as the host layer's
 * packets do, by the same decision ({@link NextHopKind#of}, with the subnet broadcasts of the
 * device's addresses): unicast to the resolver of its family (ARP, ND: path records, queueing
 * while resolving), multicast to the multicast manager (RFC 4391 §10 egress decision), the limited
 * and the subnet broadcast to the broadcast group. Headers are read with the codec's accessors
 * ({@link Ipv4Header}, {@link Ipv6Header}, {@link Ipv6HeaderChain}). The kernel's own Neighbor Discovery messages are dropped (counted): the
 * device is NOARP, ND stays in this stack. IPv6 packets are classified by their upper-layer
 * header, after the whole extension-header chain ({@link Ipv6HeaderChain}): ND behind any header
 * is dropped, a chain that cannot be parsed is dropped and counted. IGMP and MLD reports go out as
 * well and update {@link Membership}, whose joins are bounded per host ({@link JoinBudget}). With offload ({@link Tun#offload()}) the kernel hands over TCP segments
 * of up to 64 KiB (and an application's {@code UDP_SEGMENT} sends) and leaves checksums to the
 * device: the bridge completes the checksums and cuts the large packets to the link's MTU
 * ({@link Segmentation}), and the packets of one read go to the link as one transmit burst (one
 * post list); a segment size that would cut a packet into tiny frames is refused and counted.
 *
 * <p>Fabric to kernel (the link's receive thread; the link hands a bridged interface's IPv4 and
 * IPv6 frames to the bridge alone): every IPv4 and IPv6 frame is written to the device, except ND
 * messages (behind any extension headers, also in a first fragment: RFC 6980 makes ND in
 * fragments invalid) and IPv6 frames whose header chain cannot be parsed. ND directly after the
 * IPv6 header goes to the stack's {@link NeighborDiscoveryReceiver} (the nd bundle), as the host
 * layer hands it on an interface that is not bridged; ND behind extension headers is dropped. With offload, consecutive TCP
 * segments of one flow in one poll of the link are written as one ({@link ReceiveCoalescing},
 * Linux's GRO), flushed at the end of the poll. Nothing is allocated per packet
 * (multicast groups' InetAddresses are made once, by {@link GroupAddresses}).
 */
final class Bridge implements StackAdapter.Receiver, DescriptorPoller.Reader {
    /**
     * Largest packet read from the device: an IPv4 or IPv6 packet of 64 KiB (with offload, the
     * kernel's largest TCP segment; without, the largest IPoIB MTU, 65520 in connected mode).
     */
    static final int READ_CAPACITY = 65536;
    /** Packets read per turn before the poller serves its other devices (as NAPI's weight, 64). */
    static final int READ_BUDGET = 64;
    /** One WARN per this many seconds for failed joins; the ones suppressed are counted in the next. */
    private static final long JOIN_WARN_SECONDS = 10;

    /**
     * Per reading thread (a poller's): what a read fills, shared by every device that thread
     * reads, so that a device itself holds no read buffer.
     */
    private static final ThreadLocal<ReadBuffers> READ_BUFFERS = ThreadLocal.withInitial(ReadBuffers::new);
    /** A per-thread native buffer for frames whose receive buffer is on the Java heap. */
    private static final ThreadLocal<MemorySegment> COPIES =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(READ_CAPACITY, 8));

    private final PacketDevice tun;
    /** The device's name as the user knows it (in its namespace), for messages. */
    private final String device;
    private final StackAdapter stack;
    private final Membership membership;
    private final Consumer<String> warn;
    private final RateLimiter joinWarnings;
    /** Consecutive failed joins per group (entries go when the group's join succeeds). */
    private final Map<InetAddress, Integer> consecutiveJoinFailures = new java.util.concurrent.ConcurrentHashMap<>();
    /** The reading thread's buffers while it reads this device ({@link #readable()}). */
    private ReadBuffers.View in;
    private final Segmentation.Sink sendSegment;
    private final GroupAddresses groups = new GroupAddresses();
    private final SubnetBroadcasts broadcasts = new SubnetBroadcasts();
    private DescriptorPoller.Registration reading;

    private final Counters counters = new Counters();
    private final LongAdder txPackets = counter("tx_packets");
    private final LongAdder txBytes = counter("tx_bytes");
    private final LongAdder txMulticast = counter("tx_multicast");
    private final LongAdder txBroadcast = counter("tx_broadcast");
    private final LongAdder txMalformed = counter("tx_malformed");
    private final LongAdder txKernelNd = counter("tx_kernel_nd_dropped");
    private final LongAdder txChainMalformed = counter("tx_ipv6_header_chain_malformed");
    private final LongAdder txGsoRefused = counter("tx_gso_segment_size_refused");
    private final LongAdder[] txResults = new LongAdder[TransmitResult.values().length];
    private final LongAdder readErrors = counter("read_errors");
    private final LongAdder rxPackets = counter("rx_packets");
    private final LongAdder rxBytes = counter("rx_bytes");
    private final LongAdder rxNd = counter("rx_nd_kept_in_stack");
    private final LongAdder rxNdToStack = counter("rx_nd_to_stack");
    private final LongAdder rxNdNoReceiver = counter("rx_nd_no_receiver");
    private final LongAdder rxChainMalformed = counter("rx_ipv6_header_chain_malformed");
    private final LongAdder rxWriteErrors = counter("rx_write_errors");
    private final LongAdder reports = counter("membership_reports");
    private final LongAdder joinsOverBudget = counter("membership_joins_over_budget");
    private final LongAdder joinFailures = counter("membership_join_failures");
    private final LongAdder txTsoPackets = counter("tx_tso_packets");
    private final LongAdder txTsoSegments = counter("tx_tso_segments");
    private final LongAdder txUsoPackets = counter("tx_uso_packets");
    private final LongAdder txUsoDatagrams = counter("tx_uso_datagrams");
    private final LongAdder txChecksumsCompleted = counter("tx_checksums_completed");
    private final LongAdder rxCoalesced = counter("rx_gro_packets");
    private final LongAdder rxSegmentsCoalesced = counter("rx_gro_segments");
    private final LongAdder rxChecksumsVerified = counter("rx_large_checksums_verified");
    /** With offload: TCP segments of one poll of the link merged for the kernel; null without. */
    private final ReceiveCoalescing coalescing;

    /**
     * The data path of {@code tun}, which the user knows as {@code device}; {@code clock} paces
     * the joins ({@link JoinBudget}) and the WARNs of failed joins.
     */
    Bridge(PacketDevice tun, String device, StackAdapter stack, Consumer<String> warn, Clock clock) {
        this.tun = tun;
        this.device = device;
        this.stack = stack;
        this.warn = warn;
        this.joinWarnings = new RateLimiter(clock, JOIN_WARN_SECONDS, TimeUnit.SECONDS);
        for (TransmitResult r : TransmitResult.values()) {
            txResults[r.ordinal()] = counter("tx_" + r.name().toLowerCase(Locale.ROOT));
        }
        this.membership = new Membership(this::join, this::leave, new JoinBudget(clock), joinsOverBudget);
        this.sendSegment = (buffer, offset, length) -> send(buffer == in.segments().buffer
                ? in.segments().at(offset, length) : in.packets().at(offset, length));
        this.coalescing = tun.offload()
                ? new ReceiveCoalescing(tun, rxCoalesced, rxSegmentsCoalesced, rxChecksumsVerified, rxWriteErrors) : null;
    }

    private LongAdder counter(String name) {
        return counters.counter(name);
    }

    /** Whether the kernel offloads checksums and TCP segmentation to the device. */
    boolean offload() {
        return tun.offload();
    }

    Membership membership() {
        return membership;
    }

    /** The counters by name, in a stable order. */
    Map<String, Long> counters() {
        return counters.snapshot();
    }

    /** The IPv4 subnet broadcast addresses of the device's addresses (sent to the broadcast group). */
    void broadcasts(int[] addresses) {
        broadcasts.addresses = addresses.clone();
    }

    /** Starts reading the device ({@code descriptor}) on one of the shared pollers. */
    void start(int descriptor) throws java.io.IOException {
        reading = TunPollers.register(descriptor, this);
    }

    /** Stops reading the device; returns once a read in progress ended, so that the descriptor can be closed safely. */
    void stop() {
        DescriptorPoller.Registration r = reading;
        reading = null;
        if (r != null) {
            r.close();
        }
    }

    /**
     * The device has packets: reads up to {@value #READ_BUDGET} of them (fewer when it has no more)
     * and sends each to the fabric; false when the descriptor failed (counted; the poller backs off).
     */
    @Override
    public boolean readable() {
        ReadBuffers.View view = READ_BUFFERS.get().view(tun.headerLength());
        in = view;
        for (int i = 0; i < READ_BUDGET; i++) {
            int n = tun.read(view.address(), view.capacity());
            if (n > 0) {
                fromKernel(n);
            } else if (n == -2) {
                readErrors.increment();
                return false;
            } else {
                break;
            }
        }
        return true;
    }

    /** One read of {@code n} octets from the kernel (the device's header included), in the read buffer. */
    private void fromKernel(int n) {
        int length = n - tun.headerLength();
        if (length <= 0) {
            txMalformed.increment();
        } else if (tun.offload()) {
            offloaded(length);
        } else {
            send(in.packets().of(length));
        }
    }

    /**
     * A packet after its {@link VnetHeader}: a checksum left to the device is completed, a large
     * TCP segment or a UDP_SEGMENT send is cut to the size the kernel gives (the GSO size) and the
     * pieces sent as one burst. A GSO size {@link Segmentation} refuses (too small a TCP segment,
     * too many UDP datagrams) drops the packet, counted.
     */
    private void offloaded(int length) {
        MemorySegment readBuffer = in.readBuffer();
        MemorySegment packets = in.packets().buffer;
        int gso = VnetHeader.gsoType(readBuffer);
        if (gso == VnetHeader.GSO_NONE) {
            if ((VnetHeader.flags(readBuffer) & VnetHeader.NEEDS_CHECKSUM) != 0) {
                if (!Segmentation.completeChecksum(packets, length, VnetHeader.checksumStart(readBuffer),
                        VnetHeader.checksumOffset(readBuffer))) {
                    txMalformed.increment();
                    return;
                }
                txChecksumsCompleted.increment();
            }
            send(in.packets().of(length));
            return;
        }
        boolean tcp = gso == VnetHeader.GSO_TCPV4 || gso == VnetHeader.GSO_TCPV6;
        if (!tcp && gso != VnetHeader.GSO_UDP_L4) {
            txMalformed.increment(); // a type the device did not offer (TUNSETOFFLOAD)
            return;
        }
        boolean burst = stack.link().beginBurst();
        try {
            int size = VnetHeader.gsoSize(readBuffer);
            MemorySegment segments = in.segments().buffer;
            int count = tcp ? Segmentation.tcp(packets, length, size, segments, sendSegment)
                    : Segmentation.udp(packets, length, size, segments, sendSegment);
            if (count == Segmentation.REFUSED_SIZE) {
                txGsoRefused.increment();
            } else if (count < 0) {
                txMalformed.increment();
            } else {
                (tcp ? txTsoPackets : txUsoPackets).increment();
                (tcp ? txTsoSegments : txUsoDatagrams).add(count);
            }
        } finally {
            if (burst) {
                stack.link().endBurst();
            }
        }
    }

    /** One packet, the whole of {@code b}, to the fabric. */
    private void send(MemorySegment b) {
        int n = (int) b.byteSize();
        int version = IpVersion.of(b, 0);
        boolean v6;
        long high;
        long low;
        if (version == IpVersion.IPV4 && n >= Ipv4Header.LENGTH) {
            int headerLength = Ipv4Header.headerLength(b, 0);
            if (Ipv4Header.protocol(b, 0) == Ipv4Header.PROTOCOL_IGMP && headerLength < n
                    && membership.igmp(b, headerLength, n - headerLength)) {
                reports.increment();
            }
            v6 = false;
            high = 0;
            low = Ipv4Header.destination(b, 0) & 0xFFFF_FFFFL;
        } else if (version == IpVersion.IPV6 && n >= Ipv6Header.LENGTH) {
            int chain = Ipv6HeaderChain.walk(b, 0, n);
            if (chain == Ipv6HeaderChain.MALFORMED || isTruncatedIcmpv6(chain, n)) {
                txChainMalformed.increment();
                return;
            }
            if (isIcmpv6(chain)) {
                int upper = Ipv6HeaderChain.upperOffset(chain);
                if (NeighborDiscoveryReceiver.isNeighborDiscovery(icmpv6Type(b, upper))) {
                    txKernelNd.increment();
                    return;
                }
                if (!Ipv6HeaderChain.fragmented(chain) && membership.mld(b, upper, n - upper)) {
                    reports.increment();
                }
            }
            v6 = true;
            high = Ipv6Header.destinationHigh(b, 0);
            low = Ipv6Header.destinationLow(b, 0);
        } else {
            txMalformed.increment();
            return;
        }
        int etherType = v6 ? EtherType.IPV6 : EtherType.IPV4;
        TransmitResult result = switch (NextHopKind.of(v6, high, low, broadcasts)) {
            case BROADCAST -> {
                txBroadcast.increment();
                yield stack.broadcast(etherType, b);
            }
            case MULTICAST -> {
                txMulticast.increment();
                yield stack.multicast(v6 ? groups.ipv6(high, low) : groups.ipv4((int) low), etherType, b);
            }
            case UNICAST -> stack.unicast(v6, high, low, b);
        };
        txResults[result.ordinal()].increment();
        if (!result.isDrop()) {
            txPackets.increment();
            txBytes.add(n);
        }
    }

    /** Whether a walk ended at ICMPv6 (a later fragment did not: it has no upper-layer header). */
    private static boolean isIcmpv6(int chain) {
        return chain >= 0 && Ipv6HeaderChain.protocol(chain) == Ipv6HeaderChain.ICMPV6;
    }

    /** ICMPv6 without its 4-octet header (RFC 4443 §2.1) in a packet of {@code length} octets. */
    private static boolean isTruncatedIcmpv6(int chain, int length) {
        return isIcmpv6(chain) && Ipv6HeaderChain.upperOffset(chain) + 4 > length;
    }

    /** The type of the ICMPv6 message at {@code icmpv6} (RFC 4443 §2.1: its first octet). */
    private static int icmpv6Type(MemorySegment b, long icmpv6) {
        return Wire.u8(b, icmpv6);
    }

    /**
     * A frame from the fabric: written to the device unless it is Neighbor Discovery (handed to the
     * stack's ND when directly after the IPv6 header) or an IPv6 packet whose header chain cannot be
     * parsed.
     */
    @Override
    public void fromLink(ReceivedFrame frame) {
        MemorySegment buffer = frame.buffer();
        long offset = frame.payloadOffset();
        int length = frame.payloadLength();
        if (frame.etherType() == EtherType.IPV6) {
            int chain = Ipv6HeaderChain.walk(buffer, offset, length);
            if (chain == Ipv6HeaderChain.MALFORMED || isTruncatedIcmpv6(chain, length)) {
                rxChainMalformed.increment();
                return;
            }
            if (isIcmpv6(chain)) {
                int upper = Ipv6HeaderChain.upperOffset(chain);
                int type = icmpv6Type(buffer, offset + upper);
                if (NeighborDiscoveryReceiver.isNeighborDiscovery(type)) {
                    rxNd.increment();
                    // What NeighborDiscoveryReceiver takes: next header 58 and a payload length that fits.
                    if (upper == Ipv6Header.LENGTH && Ipv6Header.payloadLength(buffer, offset) <= length - upper) {
                        (stack.neighborDiscovery(frame, type) ? rxNdToStack : rxNdNoReceiver).increment();
                    }
                    return;
                }
            }
        }
        if (tun.isClosed() || length <= 0 || length > READ_CAPACITY) {
            rxWriteErrors.increment();
            return;
        }
        long address;
        if (buffer.isNative()) {
            address = buffer.address() + offset;
        } else {
            MemorySegment copy = COPIES.get();
            MemorySegment.copy(buffer, offset, copy, 0, length);
            address = copy.address();
        }
        rxPackets.increment();
        rxBytes.add(length);
        if (coalescing != null) {
            coalescing.receive(buffer, offset, length, address);
        } else if (!tun.write(address, length)) {
            rxWriteErrors.increment();
        }
    }

    /** The link's poll ended: what receive coalescing holds goes to the kernel now. */
    @Override
    public void endOfBatch() {
        if (coalescing != null) {
            coalescing.flush();
        }
    }

    /**
     * A listener join. One the multicast service refused outright (IllegalArgumentException: it
     * does not know the interface yet, so no listener was recorded) is tried again at the next
     * reconciliation with the device's multicast list (every 2 s): its first failure is expected
     * when the link restarts, as the bridge comes back before the multicast service knows the new
     * interface. A listener it recorded and could not join yet is its to retry. A failure that is
     * not a first refusal is logged, at most once per {@value #JOIN_WARN_SECONDS} s; every failure
     * is counted.
     */
    private void join(InetAddress group) {
        stack.join(group).whenComplete((ok, failure) -> {
            if (failure == null) {
                consecutiveJoinFailures.remove(group);
                return;
            }
            joinFailures.increment();
            Throwable cause = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
                    ? failure.getCause() : failure;
            boolean refused = cause instanceof IllegalArgumentException;
            if (refused) {
                membership.joinFailed(group);
            }
            if (!refused || consecutiveJoinFailures.merge(group, 1, Integer::sum) >= 2) {
                long suppressed = joinWarnings.tryAcquire();
                if (suppressed >= 0) {
                    warn.accept(device + ": join of " + group.getHostAddress() + " failed: " + failure.getMessage()
                            + (suppressed == 0 ? "" : " (" + suppressed + " more failed joins not logged)"));
                }
            }
        });
    }

    private void leave(InetAddress group) {
        stack.leave(group);
    }

    /** The subnet broadcast addresses of the device's IPv4 addresses, for {@link NextHopKind#of}. */
    private static final class SubnetBroadcasts implements IntPredicate {
        volatile int[] addresses = new int[0];

        @Override
        public boolean test(int address) {
            for (int b : addresses) {
                if (b == address) {
                    return true;
                }
            }
            return false;
        }
    }
}
