package ipoib.bench;

import ipoib.api.link.TransmitResult;
import ipoib.link.internal.LinkEngine;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;

/**
 * The multicast manager ({@link MulticastManager}: the bundle's engine built through its public
 * constructor, without OSGi) on a link of the loopback fabric and its subnet administrator: the
 * time to join 1 000 groups as a listener, and the egress decision of the send path for a group
 * the port is a member of.
 */
public class MulticastBenchmark {

    static final int GROUPS = 1000;
    static final int ETHERTYPE = 0x88B5;

    static List<InetAddress> groups() {
        List<InetAddress> out = new ArrayList<>(GROUPS);
        for (int i = 0; i < GROUPS; i++) {
            out.add(InetAddress.ofLiteral("239.1." + (i >> 8) + "." + (i & 0xFF)));
        }
        return out;
    }

    /** A fresh subnet, link and manager for every shot: each join is cold (a new group at the SA). */
    @State(Scope.Benchmark)
    public static class Fresh {
        final List<InetAddress> addresses = groups();
        LoopbackSubnet subnet;
        LinkEngine link;
        MulticastManager manager;

        @Setup(Level.Invocation)
        public void start() throws Exception {
            subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
            link = BenchLinks.open(subnet, "mc0", "loop0", Map.of());
            manager = new MulticastManager(link.multicastAttachment(), 2 * GROUPS);
        }

        @TearDown(Level.Invocation)
        public void stop() {
            manager.close();
            link.close();
            subnet.close();
        }
    }

    /** Time to join 1 000 groups (listener joins, each a FullMember join at the SA), until the last completes. */
    @Benchmark
    @BenchmarkMode(Mode.SingleShotTime)
    @OutputTimeUnit(TimeUnit.MILLISECONDS)
    public void join1000(Fresh fresh) throws Exception {
        fresh.manager.joinAll(fresh.addresses).get(60, TimeUnit.SECONDS);
    }

    /** One joined group; sends go through a link that does nothing, so that only the decision is measured. */
    @State(Scope.Benchmark)
    public static class Member {
        LoopbackSubnet subnet;
        LinkEngine link;
        MulticastManager manager;
        final NullLink via = new NullLink("mc0", 0x0002_c903_0000_0101L);
        final InetAddress group = InetAddress.ofLiteral("239.2.0.1");
        final MemorySegment packet = Arena.ofAuto().allocate(64);

        @Setup(Level.Trial)
        public void start() throws Exception {
            subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5);
            link = BenchLinks.open(subnet, "mc0", "loop0", Map.of());
            manager = new MulticastManager(link.multicastAttachment(), 64);
            manager.joinAll(List.of(group)).get(10, TimeUnit.SECONDS);
            if (manager.send(via, group, ETHERTYPE, packet) != TransmitResult.SENT) {
                throw new IllegalStateException("the member group is not sendable");
            }
        }

        @TearDown(Level.Trial)
        public void stop() {
            manager.close();
            link.close();
            subnet.close();
        }
    }

    /** RFC 4391 §10 for a group the port is a FullMember of: the send path's lookup and check. */
    @Benchmark
    @BenchmarkMode(Mode.AverageTime)
    @OutputTimeUnit(TimeUnit.NANOSECONDS)
    public TransmitResult egressMember(Member member) {
        return member.manager.send(member.via, member.group, ETHERTYPE, member.packet);
    }
}
