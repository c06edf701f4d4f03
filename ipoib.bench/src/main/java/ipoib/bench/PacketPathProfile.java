package ipoib.bench;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * Drives the packet path for a while outside JMH, so that a profiler (JFR: run with
 * {@code -XX:StartFlightRecording=filename=packet-path.jfr}) sees only it. Prints packets/s.
 * Usage: {@code java -cp benchmarks.jar ipoib.bench.PacketPathProfile [payload bytes] [seconds] [burst]}
 * (burst: frames per transmit burst, 1 for none).
 */
public final class PacketPathProfile {
    private PacketPathProfile() {}

    public static void main(String[] args) throws Exception {
        int payloadBytes = args.length > 0 ? Integer.parseInt(args[0]) : 64;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 10;
        int burst = args.length > 2 ? Integer.parseInt(args[2]) : 1;
        MemorySegment payload = Arena.ofAuto().allocate(payloadBytes);
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        try (LinkPair links = new LinkPair()) {
            links.timeWaits = true;
            long cpuStart = threads.getCurrentThreadCpuTime();
            long end = System.nanoTime() + seconds * 1_000_000_000L;
            long count = 0;
            long start = System.nanoTime();
            while (System.nanoTime() < end) {
                for (int i = 0; i < 1000; i++) {
                    if (burst > 1) {
                        links.sendBurst(payload, burst);
                    } else {
                        links.sendOne(payload);
                    }
                }
                count += 1000L * burst;
            }
            long cpu = threads.getCurrentThreadCpuTime() - cpuStart;
            links.drain();
            double elapsed = (System.nanoTime() - start) / 1e9;
            System.out.printf("%d-octet frames: %.0f packets/s delivered%n", payloadBytes, links.delivered.get() / elapsed);
            System.out.printf("sender CPU %.0f ns/frame outside window waits (%.0f ns/frame in %d waits)%n",
                    (double) (cpu - links.cpuInWaits) / count, (double) links.cpuInWaits / count, links.waitsTimed);
            System.out.printf("window waits %d, sleeps %d, send retries %d, drops %s%n", links.windowWaits,
                    links.delivered.sleeps, links.retries,
                    links.sender.dropCounters());
        }
    }
}
