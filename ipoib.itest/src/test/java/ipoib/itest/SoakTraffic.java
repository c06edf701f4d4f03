package ipoib.itest;

import ipoib.api.host.EchoReply;
import ipoib.api.host.IpHost;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.TransmitResult;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;

/**
 * The soak's mixed traffic, through the host's public services as an embedding application
 * sends it: UDP unicast over IPv4 and IPv6 between every pair of interfaces, UDP to an IPv4 and
 * an IPv6 multicast group every interface listens to, and ICMP/ICMPv6 echo. One {@link #round}
 * sends every flow once and says whether every expected datagram and reply arrived.
 *
 * <p>The services are looked up for each round: a bundle restart replaces them, and the socket
 * is opened again on the new UDP service (as an application tracking the service would).
 */
final class SoakTraffic {
    static final int PORT = 9999;
    /** At most 20 rounds a second: about 1 000 packets a second with three interfaces. */
    static final Duration ROUND_PERIOD = Duration.ofMillis(50);

    private final BundleContext context;
    private final List<Node> nodes;
    private final InetAddress group4;
    private final InetAddress group6;
    private final Set<String> arrived = ConcurrentHashMap.newKeySet();
    private final AtomicLong received = new AtomicLong();
    private long sent;
    private long expected;
    private long echoesSent;
    private long echoesAnswered;
    private long sequence;
    private UdpService udpService;
    private UdpSocket socket;

    /** An interface of the soak: its name and its IPv4 and IPv6 addresses. */
    record Node(String link, InetAddress v4, InetAddress v6) {}

    /** What one round lacked (empty when everything arrived). */
    record Outcome(List<String> missing) {
        boolean complete() {
            return missing.isEmpty();
        }
    }

    SoakTraffic(BundleContext context, List<Node> nodes, InetAddress group4, InetAddress group6) {
        this.context = context;
        this.nodes = nodes;
        this.group4 = group4;
        this.group6 = group6;
    }

    long sent() {
        return sent + echoesSent;
    }

    /** Deliveries expected: one per unicast datagram and echo, one per other interface per multicast one. */
    long expected() {
        return expected + echoesSent;
    }

    long received() {
        return received.get() + echoesAnswered;
    }

    /** Sends every flow once and waits up to {@code wait} for all of them to arrive. */
    Outcome round(Duration wait) throws InterruptedException {
        long started = System.nanoTime();
        try {
            return sendRound(wait);
        } finally {
            // Paced: the soak shares the machine; a round every ROUND_PERIOD at most.
            long left = ROUND_PERIOD.toNanos() - (System.nanoTime() - started);
            if (left > 0) {
                java.util.concurrent.locks.LockSupport.parkNanos(left);
            }
        }
    }

    private Outcome sendRound(Duration wait) throws InterruptedException {
        List<String> missing = new ArrayList<>();
        UdpSocket s = socket();
        IpHost host = service(IpHost.class);
        if (s == null || host == null) {
            missing.add(s == null ? "no UDP service" : "no IP host service");
            return new Outcome(missing);
        }
        List<String> expected = new ArrayList<>();
        List<CompletableFuture<EchoReply>> echoes = new ArrayList<>();
        List<String> echoNames = new ArrayList<>();
        for (Node from : nodes) {
            for (Node to : nodes) {
                if (from == to) {
                    continue;
                }
                expected.add(send(s, from, to.v4(), to.link(), "v4"));
                expected.add(send(s, from, to.v6(), to.link(), "v6"));
                for (InetAddress dst : new InetAddress[] {to.v4(), to.v6()}) {
                    int seq = (int) (++sequence & 0xffff);
                    echoesSent++;
                    echoNames.add("echo " + from.link() + "->" + dst.getHostAddress());
                    echoes.add(host.echo(from.link(), dst, 0x50a6, seq, 56, wait).toCompletableFuture());
                }
            }
            String m4 = send(s, from, group4, null, "m4");
            String m6 = send(s, from, group6, null, "m6");
            for (Node to : nodes) {
                if (to != from) {
                    expected.add(m4 + "@" + to.link());
                    expected.add(m6 + "@" + to.link());
                }
            }
        }
        this.expected += expected.size();
        long deadline = System.nanoTime() + wait.toNanos();
        for (String e : expected) {
            while (!arrived.contains(e) && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(1_000_000);
            }
            if (!arrived.contains(e)) {
                missing.add("udp " + e);
            }
        }
        for (int i = 0; i < echoes.size(); i++) {
            long left = Math.max(1, deadline - System.nanoTime());
            try {
                echoes.get(i).get(left, TimeUnit.NANOSECONDS);
                echoesAnswered++;
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                missing.add(echoNames.get(i) + ": " + e.getClass().getSimpleName()
                        + (e.getCause() == null ? "" : " " + e.getCause().getMessage()));
            }
        }
        arrived.clear();
        return new Outcome(missing);
    }

    /** Sends one datagram; its tag, with "@link" appended for unicast (the interface it must arrive on). */
    private String send(UdpSocket s, Node from, InetAddress to, String toLink, String kind) {
        String tag = kind + ":" + (++sequence) + ":" + from.link();
        byte[] bytes = tag.getBytes(StandardCharsets.US_ASCII);
        sent++;
        try {
            TransmitResult r = s.send(from.link(), to, PORT, MemorySegment.ofArray(bytes));
            if (r != TransmitResult.SENT && r != TransmitResult.QUEUED) {
                return tag + " (" + r + ")" + (toLink == null ? "" : "@" + toLink);
            }
        } catch (RuntimeException e) {
            // The host is stopping (a bundle restart): the datagram is lost, the round says so.
            return tag + " (" + e.getMessage() + ")" + (toLink == null ? "" : "@" + toLink);
        }
        return toLink == null ? tag : tag + "@" + toLink;
    }

    private void onDatagram(ipoib.api.host.UdpDatagram d) {
        byte[] bytes = d.buffer().asSlice(d.payloadOffset(), d.payloadLength()).toArray(ValueLayout.JAVA_BYTE);
        if (arrived.add(new String(bytes, StandardCharsets.US_ASCII) + "@" + d.link())) {
            received.incrementAndGet();
        }
    }

    private UdpSocket socket() {
        UdpService current = service(UdpService.class);
        if (current != udpService) {
            close();
            udpService = current;
            if (current != null) {
                try {
                    socket = current.open(PORT, this::onDatagram);
                } catch (RuntimeException e) {
                    udpService = null;
                    return null;
                }
            }
        }
        return socket;
    }

    private <T> T service(Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        return ref == null ? null : context.getService(ref);
    }

    void close() {
        if (socket != null) {
            try {
                socket.close();
            } catch (RuntimeException e) {
                // The service that owned it is gone already.
            }
            socket = null;
        }
        udpService = null;
    }
}
