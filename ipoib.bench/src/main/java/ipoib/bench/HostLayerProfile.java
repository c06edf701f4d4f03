package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The host layer's own cost per datagram ({@link HostLayer}: one thread, no fabric), printed in
 * ns per datagram for the send side (connected socket to the link), the receive side (the IPv4
 * handler to the socket's receiver) and both in one call. Usage:
 * {@code java -cp benchmarks.jar ipoib.bench.HostLayerProfile [payload bytes] [rounds]}; run with
 * {@code -XX:StartFlightRecording=...} to profile.
 */
public final class HostLayerProfile {
    private HostLayerProfile() {}

    static final int PER_ROUND = 2_000_000;

    public static void main(String[] args) throws Exception {
        int payloadBytes = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 5;
        String only = args.length > 2 ? args[2] : "all";
        MemorySegment payload = Arena.ofAuto().allocate(payloadBytes);
        try (HostLayer host = new HostLayer()) {
            double send = Double.MAX_VALUE;
            double receive = Double.MAX_VALUE;
            double both = Double.MAX_VALUE;
            for (int r = 0; r < rounds; r++) {
                if (only.equals("all") || only.equals("send")) {
                    long t0 = System.nanoTime();
                    for (int i = 0; i < PER_ROUND; i++) {
                        host.sender.send(payload);
                    }
                    send = Math.min(send, (System.nanoTime() - t0) / (double) PER_ROUND);
                }
                if (only.equals("all") || only.equals("receive")) {
                    host.primeReceiver(payload);
                    long before = host.delivered;
                    long t0 = System.nanoTime();
                    for (int i = 0; i < PER_ROUND; i++) {
                        host.receiveAgain(28 + payloadBytes);
                    }
                    receive = Math.min(receive, (System.nanoTime() - t0) / (double) PER_ROUND);
                    check(host.delivered - before);
                }
                if (only.equals("all") || only.equals("both")) {
                    host.connectReceiver();
                    long before = host.delivered;
                    long t0 = System.nanoTime();
                    for (int i = 0; i < PER_ROUND; i++) {
                        host.sender.send(payload);
                    }
                    both = Math.min(both, (System.nanoTime() - t0) / (double) PER_ROUND);
                    check(host.delivered - before);
                    host.linkA.peer = null;
                }
            }
            System.out.printf("%d-octet payloads, best of %d rounds: send %.1f ns, receive %.1f ns, both %.1f ns per datagram%n",
                    payloadBytes, rounds, send, receive, both);
        }
    }

    private static void check(long delivered) {
        if (delivered != PER_ROUND) {
            throw new IllegalStateException(delivered + " of " + PER_ROUND + " datagrams delivered");
        }
    }
}
