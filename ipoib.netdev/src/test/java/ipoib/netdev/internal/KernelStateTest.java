package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A device's addresses and groups read in the process agree with what iproute2's {@code ip}
 * prints for the same device (root: it makes namespace {@code ipoib-ks-PID}; run under
 * {@code flock /tmp/ipoib-netns.lock}), and the readers of the kernel's formats take what the
 * kernel writes.
 */
class KernelStateTest {
    @Test
    void addressesAndGroupsAreWhatIpShowsForTheDeviceInItsNamespace() throws Exception {
        assumeTrue(Tun.missingPrivilege() == null, "needs /dev/net/tun and CAP_NET_ADMIN");
        String netns = "ipoib-ks-" + ProcessHandle.current().pid();
        String device = "ibk" + (ProcessHandle.current().pid() % 100000);
        IpRoute.run("netns", "add", netns);
        try (Tun tun = Tun.openIn(netns, device, false)) {
            IpRoute.batch(netns, false, List.of("link set dev lo up", "link set dev " + device + " addrgenmode none",
                    "addr add 10.9.8.7/24 dev " + device, "addr add 10.9.9.1/16 dev " + device,
                    "addr add fd00:9::7/64 dev " + device + " nodad", "link set dev " + device + " mtu 2044 up",
                    "addr add 10.1.1.1/8 dev lo")).orThrow(netns);
            try (KernelState state = KernelState.open(netns, device)) {
                IpRoute.State read = state.read();
                IpRoute.State ip = IpRoute.state(netns, device, List.of());
                assertEquals(cidrs(ip.addresses()), cidrs(read.addresses()));
                assertTrue(read.addresses().containsAll(List.of("10.9.8.7/24", "10.9.9.1/16")), read.toString());
                assertEquals(3, read.addresses().size(), read.toString()); // not lo's
                assertEquals(ip.groups(), read.groups());
                // The kernel joins all-hosts (RFC 1112) and the all-nodes groups (RFC 4291 §2.7.1); on a NOARP
                // device no solicited-node group.
                assertEquals(Set.of(InetAddress.getByName("224.0.0.1"), InetAddress.getByName("ff02::1"),
                        InetAddress.getByName("ff01::1")), read.groups());

                IpRoute.batch(netns, false, List.of("addr del 10.9.9.1/16 dev " + device)).orThrow(netns);
                IpRoute.State again = state.read();
                assertEquals(cidrs(IpRoute.state(netns, device, List.of()).addresses()), cidrs(again.addresses()));
                assertFalse(again.addresses().contains("10.9.9.1/16"));
            }
            IOException e = assertThrows(IOException.class, () -> KernelState.open(netns, device + "x"));
            assertTrue(e.getMessage().startsWith("device " + device + "x: its index (SIOCGIFINDEX): No such device"),
                    e.getMessage());
        } finally {
            IpRoute.run("netns", "del", netns);
        }
    }

    /** As the reconciliation takes them: the same address however it is written (fd00:9::7, fd00:9:0:0:0:0:0:7). */
    private static Set<Cidr> cidrs(List<String> addresses) {
        Set<Cidr> result = new LinkedHashSet<>();
        for (String a : addresses) {
            result.add(Cidr.parse(a));
        }
        return result;
    }

    @Test
    void igmpLinesOfOtherDevicesAreNotTheDevicesGroups() throws Exception {
        // As net/ipv4/igmp.c igmp_mc_seq_show writes it: the group in memory order as %08X.
        String g1 = group4("224.0.0.1");
        String g2 = group4("239.1.2.3");
        String text = "Idx\tDevice    : Count Querier\tGroup    Users Timer\tReporter\n"
                + "1\tlo        :     1      V3\n\t\t\t\t" + g1 + "     1 0:00000000\t\t0\n"
                + "12\tib0       :     2      V3\n\t\t\t\t" + g2 + "     1 0:00000000\t\t0\n"
                + "\t\t\t\t" + g1 + "     1 0:00000000\t\t0\n";
        Set<InetAddress> groups = new LinkedHashSet<>();
        KernelState.groups4(text, 12, groups);
        assertEquals(Set.of(InetAddress.getByName("239.1.2.3"), InetAddress.getByName("224.0.0.1")), groups);
        groups.clear();
        KernelState.groups4(text, 2, groups);
        assertTrue(groups.isEmpty(), groups.toString());
    }

    private static String group4(String address) throws Exception {
        byte[] a = InetAddress.getByName(address).getAddress();
        int inMemory = ((a[0] & 0xFF) << 24) | ((a[1] & 0xFF) << 16) | ((a[2] & 0xFF) << 8) | (a[3] & 0xFF);
        return String.format("%08X", ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? Integer.reverseBytes(inMemory)
                : inMemory);
    }

    @Test
    void igmp6LinesNameTheirDeviceByIndex() throws Exception {
        // As net/ipv6/mcast.c igmp6_mc_seq_show writes it.
        String text = "1    lo              ff020000000000000000000000000001     1 0000000C 0\n"
                + "12   ib0             ff0200000000000000000001ff000007     1 00000004 0\n"
                + "12   ib0             ff020000000000000000000000000001     1 0000000C 0\n";
        Set<InetAddress> groups = new LinkedHashSet<>();
        KernelState.groups6(text, 12, groups);
        assertEquals(Set.of(InetAddress.getByName("ff02::1:ff00:7"), InetAddress.getByName("ff02::1")), groups);
    }

    @Test
    void aMessageLongerThanTheDatagramIsAnErrorNotAnOverrun() {
        MemorySegment b = Arena.ofAuto().allocate(64);
        b.set(ValueLayout.JAVA_INT, 0, 200); // a header claiming 200 octets of 64
        b.set(ValueLayout.JAVA_SHORT, 4, (short) 20);
        b.set(ValueLayout.JAVA_INT, 8, 1);
        IOException e = assertThrows(IOException.class, () -> KernelState.dumpPart(b, 64, 1, 1, new ArrayList<>()));
        assertEquals("RTM_GETADDR reply: a message of 200 octets at 0 of 64", e.getMessage());
    }
}
