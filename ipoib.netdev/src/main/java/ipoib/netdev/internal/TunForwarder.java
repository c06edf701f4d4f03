package ipoib.netdev.internal;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The ceiling of a TUN bridge, for {@code ./ipoib bench netdev}: two TUN devices joined by
 * nothing but the bridge's own device code and threads. Each device is opened as the bridge opens
 * it (checksum and segmentation offload), in its namespace, and read by a {@link DescriptorPoller}
 * of its own; what one device gives is written unchanged to the other (a TCP segment of up to
 * 64 KiB, whatever the MTU: no IPoIB, no cut to the MTU, no checksum computed). What a bridge
 * costs beyond this is the stack's; what this costs beyond a veth pair is the TUN device's two
 * copies and wake-ups.
 *
 * <p>{@code java -cp ipoib.netdev.jar ipoib.netdev.internal.TunForwarder NS1 NS2 MTU} creates
 * {@code fwd0} in NS1 (10.8.0.1/24) and in NS2 (10.8.0.2/24) with that MTU, prints {@code ready},
 * forwards until its standard input ends, and closes the devices (the kernel deletes them).
 */
public final class TunForwarder {
    private TunForwarder() {}

    public static void main(String[] args) throws Exception {
        int mtu = args.length == 3 && args[2].matches("[0-9]{3,5}") ? Integer.parseInt(args[2]) : -1;
        if (mtu < 1280 || mtu > 65520) {
            System.err.println("usage: TunForwarder <netns1> <netns2> <mtu 1280..65520>");
            System.exit(2);
        }
        String missing = Tun.missingPrivilege();
        if (missing != null) {
            System.err.println("TunForwarder: " + missing);
            System.exit(1);
        }
        Tun a;
        Tun b;
        try {
            a = open(args[0], "10.8.0.1/24", mtu);
            b = open(args[1], "10.8.0.2/24", mtu);
        } catch (IOException e) {
            System.err.println("TunForwarder: " + e.getMessage());
            System.exit(1);
            return;
        }
        try (DescriptorPoller.Registration ab = forward(a, b, new DescriptorPoller("fwd-a"));
             DescriptorPoller.Registration ba = forward(b, a, new DescriptorPoller("fwd-b"))) {
            System.out.println("ready");
            while (System.in.read() >= 0) {
                // Forwarding on the pollers' threads until the input ends.
            }
        } finally {
            a.close();
            b.close();
        }
    }

    private static Tun open(String netns, String address, int mtu) throws IOException {
        Tun tun = Tun.openIn(netns, "fwd0", true);
        IpRoute.in(netns, "link", "set", "dev", "lo", "up");
        IpRoute.in(netns, "addr", "add", address, "dev", "fwd0");
        IpRoute.in(netns, "link", "set", "dev", "fwd0", "mtu", Integer.toString(mtu), "up");
        return tun;
    }

    /**
     * Reads what {@code from} gives ({@link Bridge#READ_BUDGET} packets a turn at most, as the
     * bridge) and writes it to {@code to}.
     */
    private static DescriptorPoller.Registration forward(Tun from, Tun to, DescriptorPoller poller) throws IOException {
        MemorySegment buffer = Arena.ofAuto().allocate(Bridge.READ_CAPACITY + from.headerLength(), 8);
        long address = buffer.address();
        return poller.register(from.descriptor(), () -> {
            for (int i = 0; i < Bridge.READ_BUDGET; i++) {
                int n = from.read(address, (int) buffer.byteSize());
                if (n < 0) {
                    return n == -1;
                }
                if (n <= from.headerLength()) {
                    continue; // nothing after the header: nothing to forward
                }
                // The packet with the header it came with: a segment stays one, its checksum partial.
                to.write(address, address + from.headerLength(), n - from.headerLength());
            }
            return true;
        });
    }
}
