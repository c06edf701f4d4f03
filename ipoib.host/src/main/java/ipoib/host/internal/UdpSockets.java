package ipoib.host.internal;

import ipoib.api.host.UdpReceiver;
import ipoib.api.link.IpoibLink;
import ipoib.codec.ip.Udp;
import ipoib.runtime.InterfaceCounters;
import ipoib.runtime.InterfaceThreadCounters;
import ipoib.runtime.PerThread;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.Consumer;
import java.util.function.Function;

/** The UDP port table: binds sockets to ports and delivers received datagrams to them. */
final class UdpSockets {
    static final int FIRST_EPHEMERAL = 49152;

    private final AtomicReferenceArray<UdpSocketImpl> ports = new AtomicReferenceArray<>(65536);
    private final Consumer<String> warn;
    private final int received;
    private final InterfaceCounters.Counter noPort;
    private final InterfaceCounters.Counter receiverErrors;

    /**
     * What a receiving thread needs per packet, found with one thread-local look-up for the IP
     * handler and UDP together: its counter cells and its reusable datagram view.
     */
    static final class Receiving {
        final InterfaceThreadCounters.Local cells;
        final ReceivedDatagram datagram = new ReceivedDatagram();

        Receiving(InterfaceThreadCounters.Local cells) {
            this.cells = cells;
        }
    }

    /** Per receive thread (the link's, which may outlive this bundle's revision). */
    private final PerThread<Receiving> receiving;

    UdpSockets(InterfaceCounters counters, InterfaceThreadCounters perPacket, Consumer<String> warn) {
        this.warn = warn;
        this.receiving = new PerThread<>(() -> new Receiving(perPacket.local()));
        this.received = perPacket.counter("udp_received");
        this.noPort = counters.counter("udp_no_port");
        this.receiverErrors = counters.counter("udp_receiver_errors");
    }

    /**
     * Binds a socket made by {@code socket} to {@code port}, or to a free ephemeral port for 0.
     *
     * @throws IllegalArgumentException for a port outside 0..65535
     * @throws IllegalStateException when the port (or every ephemeral port) is in use
     */
    UdpSocketImpl bind(int port, UdpReceiver receiver, Function<Integer, UdpSocketImpl> socket) {
        if (receiver == null) {
            throw new IllegalArgumentException("a UDP socket needs a receiver");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("invalid UDP port " + port + ": allowed 1..65535, or 0 for an ephemeral port");
        }
        if (port != 0) {
            UdpSocketImpl s = socket.apply(port);
            if (!ports.compareAndSet(port, null, s)) {
                throw new IllegalStateException("UDP port " + port + " is in use");
            }
            return s;
        }
        int count = 65536 - FIRST_EPHEMERAL;
        int start = ThreadLocalRandom.current().nextInt(count);
        for (int i = 0; i < count; i++) {
            int candidate = FIRST_EPHEMERAL + (start + i) % count;
            UdpSocketImpl s = socket.apply(candidate);
            if (ports.compareAndSet(candidate, null, s)) {
                return s;
            }
        }
        throw new IllegalStateException("no free ephemeral UDP port (" + FIRST_EPHEMERAL + "..65535)");
    }

    void unbind(int port, UdpSocketImpl socket) {
        ports.compareAndSet(port, socket, null);
    }

    /** Delivers a validated datagram ({@code length} octets of UDP at {@code udp}) to its port's socket. */
    /** The calling thread's {@link Receiving}. */
    Receiving receiving() {
        return receiving.get();
    }

    void deliver(Receiving thread, IpoibLink link, boolean v6, MemorySegment b, long ip, long udp, int length) {
        int port = Udp.destinationPort(b, udp);
        UdpSocketImpl socket = ports.get(port);
        if (socket == null) {
            noPort.increment(link.name());
            return;
        }
        thread.cells.of(link.name()).increment(received);
        ReceivedDatagram d = thread.datagram;
        d.set(link.name(), v6, b, ip, udp, length);
        try {
            socket.receiver.received(d);
        } catch (RuntimeException e) {
            receiverErrors.increment(link.name());
            warn.accept("UDP receiver on port " + port + " failed: " + e);
        }
    }
}
