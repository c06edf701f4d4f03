package ipoib.api.resolve;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.Test;

/**
 * How a destination leaves on a link, from the address rules: IPv4 multicast 224.0.0.0/4 (RFC 1112
 * §4), the limited broadcast (RFC 919 §7), a subnet broadcast of the link's addresses (RFC 922),
 * IPv6 multicast ff00::/8 and no IPv6 broadcast (RFC 4291 §2, §2.7).
 */
class NextHopKindTest {
    /** The link has 10.0.0.1/24: its subnet broadcast is 10.0.0.255. */
    static final IntPredicate TEN_SLASH_24 = a -> a == 0x0A0000FF;

    /** Destinations and the kind each must have on a link with 10.0.0.1/24. */
    static Map<String, NextHopKind> destinations() {
        Map<String, NextHopKind> m = new LinkedHashMap<>();
        m.put("10.0.0.2", NextHopKind.UNICAST);
        m.put("10.0.0.255", NextHopKind.BROADCAST);
        m.put("10.0.1.255", NextHopKind.UNICAST); // another subnet's broadcast is not this link's
        m.put("255.255.255.255", NextHopKind.BROADCAST);
        m.put("224.0.0.1", NextHopKind.MULTICAST);
        m.put("239.255.255.255", NextHopKind.MULTICAST);
        m.put("223.255.255.255", NextHopKind.UNICAST);
        m.put("240.0.0.1", NextHopKind.UNICAST);
        m.put("ff02::1", NextHopKind.MULTICAST);
        m.put("ff02::1:ff00:2", NextHopKind.MULTICAST);
        m.put("fe80::2", NextHopKind.UNICAST);
        m.put("fd00::ffff:ffff", NextHopKind.UNICAST);
        return m;
    }

    @Test
    void eachDestinationHasTheKindItsAddressRulesGive() throws Exception {
        for (Map.Entry<String, NextHopKind> e : destinations().entrySet()) {
            InetAddress a = InetAddress.getByName(e.getKey());
            boolean v6 = a.getAddress().length == 16;
            assertEquals(e.getValue(), NextHopKind.of(v6, AddressBits.high(a), AddressBits.low(a), TEN_SLASH_24),
                    e.getKey());
        }
    }

    @Test
    void theLinksBroadcastsAreAskedOnlyForIpv4UnicastRangeAddresses() {
        IntPredicate refuses = a -> {
            throw new AssertionError("asked about " + Integer.toHexString(a));
        };
        assertEquals(NextHopKind.BROADCAST, NextHopKind.of(false, 0, 0xFFFF_FFFFL, refuses));
        assertEquals(NextHopKind.MULTICAST, NextHopKind.of(false, 0, 0xE000_0001L, refuses));
        assertEquals(NextHopKind.MULTICAST, NextHopKind.of(true, 0xFF02_0000_0000_0000L, 1, refuses));
        assertEquals(NextHopKind.UNICAST, NextHopKind.of(true, 0xFE80_0000_0000_0000L, 0xFF, refuses));
    }
}
