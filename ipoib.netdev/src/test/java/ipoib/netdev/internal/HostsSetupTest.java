package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class HostsSetupTest {
    @Test
    void upTo254HostsEachIsTenZeroZeroKSlash24() {
        assertEquals("10.0.0.1/24", HostsSetup.address(1, 4));
        assertEquals("10.0.0.254/24", HostsSetup.address(254, 254));
    }

    @Test
    void moreHostsShareOneSlash16WithoutNetworkOrBroadcastOctets() {
        assertEquals("10.0.0.1/16", HostsSetup.address(1, 256));
        assertEquals("10.0.0.254/16", HostsSetup.address(254, 256));
        assertEquals("10.0.1.1/16", HostsSetup.address(255, 256));
        assertEquals("10.0.1.2/16", HostsSetup.address(256, 256));
        Set<String> seen = new HashSet<>();
        for (int k = 1; k <= HostsSetup.MAX_HOSTS; k++) {
            String a = HostsSetup.address(k, HostsSetup.MAX_HOSTS);
            int last = Integer.parseInt(a.substring(a.lastIndexOf('.') + 1, a.indexOf('/')));
            assertEquals(true, last >= 1 && last <= 254, a);
            assertEquals(true, seen.add(a), a + " twice");
        }
    }

    @Test
    void theNamespacesMadeInAdvanceCarryThePrefixTheDevicesUse() {
        assertEquals(java.util.List.of("s1", "s2", "s3"), HostsSetup.namespaces("s", 3));
        assertEquals(java.util.List.of("h1"), HostsSetup.namespaces(HostsSetup.DEFAULT_NETNS_PREFIX, 1));
    }

    @Test
    void aHostsLinkBindsTheBridgeServicesOfItsOwnLinkAndThoseOfNone() throws Exception {
        java.util.Dictionary<String, Object> config = HostsSetup.linkConfiguration(17);
        assertEquals("loop16", config.get("device"));
        for (String reference : new String[] {"FrameHandler.target", "LinkListener.target"}) {
            org.osgi.framework.Filter target = org.osgi.framework.FrameworkUtil.createFilter((String) config.get(reference));
            assertEquals(true, target.matches(java.util.Map.of("ipoib.link", "ib10_1_ffff")), reference);
            assertEquals(false, target.matches(java.util.Map.of("ipoib.link", "ib11_1_ffff")), reference);
            assertEquals(true, target.matches(java.util.Map.of("ipoib.ethertype", 0x0806)), reference + ": a handler of every link");
        }
    }

    @Test
    void host256RunsOnLoop255() {
        assertEquals("ibff_1_ffff", HostsSetup.linkName(256));
    }
}
