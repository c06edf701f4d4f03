package ipoib.link.internal.commands;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Proxy;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/** What {@code ipoib:await all} waits for besides the running interfaces: the named configurations without one. */
class ConfiguredWithoutLinkTest {

    private static ConfigurationCommands over(List<Map<String, Object>> stored) {
        Configuration[] configurations = stored.stream().map(p -> (Configuration) Proxy.newProxyInstance(
                Configuration.class.getClassLoader(), new Class<?>[] {Configuration.class},
                (proxy, method, args) -> method.getName().equals("getProperties") ? new Hashtable<>(p) : null))
                .toArray(Configuration[]::new);
        ConfigurationAdmin admin = (ConfigurationAdmin) Proxy.newProxyInstance(ConfigurationAdmin.class.getClassLoader(),
                new Class<?>[] {ConfigurationAdmin.class},
                (proxy, method, args) -> method.getName().equals("listConfigurations") ? configurations : null);
        return new ConfigurationCommands(admin, null, List.of());
    }

    @Test
    void aNamedConfigurationWithoutItsInterfaceIsWaitedFor() {
        assertEquals(List.of("storage"), over(List.of(Map.of("name", "storage", "device", "loop0"))).configuredWithoutLink());
    }

    /** The metatype's default name is empty: such a configuration names no interface, as one without a name. */
    @Test
    void anEmptyOrBlankNameIsNoNameToWaitFor() {
        assertEquals(List.of(), over(List.of(Map.of("name", "", "device", "loop0"), Map.of("name", " "),
                Map.of("device", "loop1"))).configuredWithoutLink());
    }

    /** ipoib:links names a configuration without a name as its component does: ibX_Y_Z (the appliance's defaults). */
    @Test
    void theListingNamesAConfigurationWithoutANameAsItsComponentDoes() {
        assertEquals(List.of("ib0_1_ffff", "storage"), over(List.of(Map.of("device", "loop0", "port", 1, "pkey", "0xffff"),
                Map.of("name", "storage", "device", "loop1"))).configuredNotStarted());
    }
}
