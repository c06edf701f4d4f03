package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Drives UDP through the host layer ({@link HostPair}: connected socket, IPv4, ARP's resolved
 * neighbour, the link, the loopback fabric, IPv4/UDP receive, the socket's receiver) for a while
 * outside JMH, so that a profiler (JFR: run with
 * {@code -XX:StartFlightRecording=filename=host-path.jfr}) sees only it. Prints datagrams/s.
 * Usage: {@code java -cp benchmarks.jar ipoib.bench.HostPathProfile [payload bytes] [seconds] [burst]}
 * (burst: datagrams per {@code UdpSocket.send(payloads, count)}, 1 for single sends).
 */
public final class HostPathProfile {
    private HostPathProfile() {}

    public static void main(String[] args) throws Exception {
        int payloadBytes = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
        int burst = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        MemorySegment payload = Arena.ofAuto().allocate(payloadBytes);
        for (int i = 0; i < payloadBytes; i++) {
            payload.set(ValueLayout.JAVA_BYTE, i, (byte) i);
        }
        MemorySegment[] payloads = new MemorySegment[Math.max(1, burst)];
        java.util.Arrays.fill(payloads, payload);
        try (HostPair hosts = new HostPair()) {
            hosts.sendOne(payload);
            if (!hosts.drain()) {
                throw new IllegalStateException("the first datagram was not delivered (ARP or path lookup failed)");
            }
            long start = System.nanoTime();
            long end = start + seconds * 1_000_000_000L;
            long before = hosts.delivered.get();
            while (System.nanoTime() < end) {
                for (int i = 0; i < 1000; i++) {
                    if (burst > 1) {
                        hosts.sendBurst(payloads, burst);
                    } else {
                        hosts.sendOne(payload);
                    }
                }
            }
            hosts.drain();
            double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.printf("%d-octet payloads, burst %d: %.0f datagrams/s delivered%n", payloadBytes, burst,
                    (hosts.delivered.get() - before) / elapsed);
        }
    }
}
