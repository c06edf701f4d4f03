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

    /**
     * Hosts that cannot be set up are not waited for: {@code ipoib:netdev await} fails at once with
     * why, and the listing says it (here a count out of range; missing privileges take the same path).
     */
    @Test
    void hostsThatCannotBeSetUpFailTheAwaitAtOnceWithWhy() throws Exception {
        org.osgi.framework.BundleContext context = (org.osgi.framework.BundleContext) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.osgi.framework.BundleContext.class},
                (proxy, method, args) -> method.getName().equals("getProperty") && HostsSetup.HOSTS_PROPERTY.equals(args[0])
                        ? "300" : null);
        java.util.List<String> errors = new java.util.ArrayList<>();
        org.osgi.service.log.Logger log = (org.osgi.service.log.Logger) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.osgi.service.log.Logger.class},
                (proxy, method, args) -> {
                    if (method.getName().equals("error")) {
                        errors.add(String.valueOf(args[0]));
                    }
                    return null;
                });
        org.osgi.service.cm.ConfigurationAdmin none = (org.osgi.service.cm.ConfigurationAdmin) java.lang.reflect.Proxy.newProxyInstance(
                getClass().getClassLoader(), new Class<?>[] {org.osgi.service.cm.ConfigurationAdmin.class},
                (proxy, method, args) -> null);
        try {
            new HostsSetup(context, none, log);
            String why = "framework property ipoib.hosts is '300': allowed 1..256";
            assertEquals(java.util.List.of(why), errors);
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> new NetdevCommands(none).netdev("await", "30"));
            assertEquals(why, e.getMessage());
            assertEquals(true, new NetdevCommands(none).netdev().endsWith("\n" + why), "the listing says it too");
        } finally {
            new HostsSetup((org.osgi.framework.BundleContext) java.lang.reflect.Proxy.newProxyInstance(getClass().getClassLoader(),
                    new Class<?>[] {org.osgi.framework.BundleContext.class}, (proxy, method, args) -> null), none, log);
        }
        assertEquals(null, HostsSetup.failure(), "a setup that asks for no hosts clears it");
    }
}
