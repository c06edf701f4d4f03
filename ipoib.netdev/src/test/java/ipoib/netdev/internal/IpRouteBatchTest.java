package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The output of one {@code ip -o -batch -} as iproute2 6.1 prints it (captured from the tool). */
class IpRouteBatchTest {
    /** {@code ip -o -n NS -batch -} with {@code addr show dev lo} and {@code maddr show dev lo}. */
    private static final String ADDR_AND_MADDR = """
            1: lo    inet 127.0.0.1/8 scope host lo\\       valid_lft forever preferred_lft forever
            1: lo    inet6 ::1/128 scope host \\       valid_lft forever preferred_lft forever
            1:\tlo\\\tinet  224.0.0.1
            1:\tlo\\\tinet6 ff02::1
            1:\tlo\\\tinet6 ff01::1
            """;

    @Test
    void addressesHaveAPrefixAndGroupsNone() throws Exception {
        IpRoute.State state = IpRoute.parseState(ADDR_AND_MADDR);
        assertEquals(List.of("127.0.0.1/8", "::1/128"), state.addresses());
        assertEquals(Set.of(InetAddress.getByName("224.0.0.1"), InetAddress.getByName("ff02::1"),
                InetAddress.getByName("ff01::1")), state.groups());
    }

    @Test
    void aFailedLineIsNamedByItsNumber() {
        List<String> lines = List.of("link set dev lo up", "link set dev ib0 addrgenmode none", "link set dev ib0 up");
        String errors = "Error: Unknown device type.\nCommand failed -:2\n";
        assertEquals(List.of("link set dev ib0 addrgenmode none"), IpRoute.failedLines(lines, errors));
        assertEquals(List.of(), IpRoute.failedLines(lines, ""));
    }
}
