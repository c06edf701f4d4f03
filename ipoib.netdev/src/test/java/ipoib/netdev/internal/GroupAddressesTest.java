package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;

class GroupAddressesTest {

    @Test
    void aGroupIsMadeOnceAndIsTheAddressOfItsBits() throws Exception {
        GroupAddresses groups = new GroupAddresses();
        InetAddress g = groups.ipv4(0xEF010101);
        assertEquals(InetAddress.getByName("239.1.1.1"), g);
        assertSame(g, groups.ipv4(0xEF010101));
        InetAddress v6 = groups.ipv6(0xff02000000000000L, 0x1L);
        assertEquals(InetAddress.getByName("ff02::1"), v6);
        assertSame(v6, groups.ipv6(0xff02000000000000L, 0x1L));
        // An IPv4 group and an IPv6 group never answer for each other, whatever slot they share.
        for (int a = 0; a < 5_000; a++) {
            InetAddress four = groups.ipv4(0xE0000000 | a);
            InetAddress six = groups.ipv6(0xff05000000000000L, a);
            assertTrue(four instanceof java.net.Inet4Address);
            assertEquals(0xE0000000 | a, java.nio.ByteBuffer.wrap(four.getAddress()).getInt());
            assertTrue(six instanceof java.net.Inet6Address);
            assertEquals(a, java.nio.ByteBuffer.wrap(six.getAddress(), 12, 4).getInt());
        }
    }

    @Test
    void theDataPathAllocatesNothingForGroupsItHasSeen() {
        GroupAddresses groups = new GroupAddresses();
        for (int i = 0; i < 100_000; i++) { // warm-up: JIT
            groups.ipv4(0xE0000001 + (i & 7));
            groups.ipv6(0xff02000000000000L, i & 7);
        }
        var threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory.getThreadMXBean();
        long before = threads.getCurrentThreadAllocatedBytes();
        for (int i = 0; i < 100_000; i++) {
            groups.ipv4(0xE0000001 + (i & 7));
            groups.ipv6(0xff02000000000000L, i & 7);
        }
        long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        // One InetAddress per lookup would be millions of bytes.
        assertTrue(allocated < 10_000, "bytes allocated by 200 000 lookups: " + allocated);
    }
}
