package ipoib.bench;

import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.api.verbs.WorkCompletions;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The loopback fabric's cost per packet against its size: one thread posts a 64-octet UD datagram
 * from loop0 to loop1, the fabric carries it through one switch into the receiver's buffer, and
 * the thread polls both completions and re-posts the receive, on the default subnet of 2, 256 and
 * 1 024 HCAs (above 254 ports the HCAs hang off leaf switches of 128; loop0 and loop1 share one).
 * The same hops at every size: a packet costs the same when the look-ups on its way (forwarding
 * table, destination port, queue pair) do not grow with the subnet.
 */
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@State(Scope.Benchmark)
public class FabricScaleBenchmark {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private static final int BUFFER = 4096 + 64;

    /** HCAs (one port each) on the subnet. */
    @Param({"2", "256", "1024"})
    public int ports;

    private LoopbackSubnet subnet;
    private Side sender;
    private Side receiver;
    private AddressHandle ah;
    private Qpn qpn;

    /** One port's CQ, UD queue pair and registered buffers. */
    private static final class Side {
        final CompletionQueue cq;
        final UdQueuePair qp;
        final MemoryRegion region;
        final WorkCompletions completions = new WorkCompletions(64);

        Side(Port port, int receives) {
            cq = port.createCompletionQueue(256);
            qp = port.createUdQueuePair(new UdQueuePairConfig(cq, cq, 64, 64, 0, QKEY, true));
            region = port.device().registerMemory(Arena.ofAuto().allocate((long) BUFFER * 64));
            for (int i = 0; i < receives; i++) {
                qp.postReceive(i, region, (long) i * BUFFER, BUFFER);
            }
        }
    }

    @Setup(Level.Trial)
    public void start() {
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(ports, 1, d.subnetPrefix(), d.nodeGuidBase(), d.mtu(), d.rate(),
                d.partitions(), 1, 0, ""), 200, 5);
        Port from = subnet.devices().get(0).ports().get(0);
        Port to = subnet.devices().get(1).ports().get(0);
        sender = new Side(from, 0);
        receiver = new Side(to, 32);
        ah = from.createAddressHandle(AddressVector.local(Lid.of(to.attributes().lid().value()), 0));
        qpn = receiver.qp.qpn();
    }

    @Benchmark
    public int sendOnALargeSubnet() {
        sender.qp.postSend(1, sender.region, 0, 64, ah, qpn, QKEY);
        sender.cq.poll(sender.completions);
        int n = receiver.cq.poll(receiver.completions);
        if (n == 0) {
            throw new IllegalStateException("the datagram did not arrive (ports " + ports + ")");
        }
        for (int i = 0; i < n; i++) {
            long slot = receiver.completions.workRequestId(i);
            receiver.qp.postReceive(slot, receiver.region, slot * BUFFER, BUFFER);
        }
        return n;
    }

    @TearDown(Level.Trial)
    public void stop() {
        subnet.close();
    }
}
