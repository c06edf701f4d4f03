package ipoib.netdev.internal;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The benchmark's baseline: two TUN devices in namespaces joined by a minimal Java forwarder
 * (what one device's reader reads is written to the other device, on the same kind of thread the
 * bridge uses: one reader per device, non-blocking reads with poll), with no IPoIB stack in
 * between. {@code java -cp ipoib.netdev.jar ipoib.netdev.internal.TunForwarder NS1 NS2 SECONDS}
 * creates {@code fwd0} in NS1 with 10.1.0.1/24 and in NS2 with 10.1.0.2/24 (MTU 2044, as the
 * IPoIB link), prints {@code ready}, forwards for SECONDS, and removes the devices.
 */
public final class TunForwarder {
    private TunForwarder() {}

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: TunForwarder <netns1> <netns2> <seconds>");
            System.exit(2);
        }
        String missing = Tun.missingPrivilege();
        if (missing != null) {
            System.err.println("TunForwarder: " + missing);
            System.exit(1);
        }
        Tun a = open("fwda", args[0], "10.1.0.1/24");
        Tun b = open("fwdb", args[1], "10.1.0.2/24");
        Thread ab = Thread.ofPlatform().daemon().start(() -> forward(a, b));
        Thread ba = Thread.ofPlatform().daemon().start(() -> forward(b, a));
        System.out.println("ready");
        Thread.sleep(Long.parseLong(args[2]) * 1000);
        a.close();
        b.close();
        ab.join(1000);
        ba.join(1000);
    }

    private static Tun open(String name, String netns, String address) throws Exception {
        Tun tun = Tun.open(name);
        IpRoute.run("link", "set", "dev", name, "netns", netns);
        IpRoute.in(netns, "link", "set", "dev", name, "name", "fwd0");
        IpRoute.in(netns, "link", "set", "dev", "lo", "up");
        IpRoute.in(netns, "addr", "add", address, "dev", "fwd0");
        IpRoute.in(netns, "link", "set", "dev", "fwd0", "mtu", "2044", "up");
        return tun;
    }

    private static void forward(Tun from, Tun to) {
        Arena arena = Arena.ofAuto();
        MemorySegment buffer = arena.allocate(Bridge.READ_CAPACITY, 8);
        MemorySegment pollfd = arena.allocate(8, 8);
        long address = buffer.address();
        while (!from.isClosed()) {
            int n = from.read(address, Bridge.READ_CAPACITY);
            if (n > 0) {
                to.write(address, n);
            } else {
                from.awaitReadable(pollfd, 100);
            }
        }
    }
}
