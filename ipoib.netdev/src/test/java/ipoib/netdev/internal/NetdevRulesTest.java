package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import ipoib.api.link.IpoibLink;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The check before a bridged interface's configuration is stored judges the interface that
 * {@code link.target} selects, the one Declarative Services binds the component to (highest
 * service.ranking, then lowest service.id), not the one {@code link} names.
 */
class NetdevRulesTest {

    private final NetdevRules rules = new NetdevRules();

    private static IpoibLink link(String name) {
        return (IpoibLink) Proxy.newProxyInstance(NetdevRulesTest.class.getClassLoader(), new Class<?>[] {IpoibLink.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    case "toString" -> name;
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    private void register(String name, long serviceId, int ranking) {
        rules.addLink(link(name), Map.of(IpoibLink.NAME_PROPERTY, name, "service.id", serviceId, "service.ranking", ranking));
    }

    private static Map<String, Object> config(String link, String target) {
        Map<String, Object> properties = new HashMap<>(Map.of("link", link, "netns", "h1"));
        if (target != null) {
            properties.put("link.target", target);
        }
        return properties;
    }

    @Test
    void aTargetSelectingAnotherInterfaceThanTheLinkIsRefused() {
        register("ib0_1_ffff", 10, 0);
        register("ib1_1_ffff", 11, 0);
        assertEquals("property link.target selects interface ib1_1_ffff, but link is ib0_1_ffff: set link.target to "
                + "(ipoib.link=ib0_1_ffff)", rules.refusal(null, config("ib0_1_ffff", "(ipoib.link=ib1_1_ffff)")));
        assertNull(rules.refusal(null, config("ib0_1_ffff", "(ipoib.link=ib0_1_ffff)")));
        assertNull(rules.refusal(null, config("ib1_1_ffff", "(ipoib.link=ib1_1_ffff)")));
    }

    @Test
    void withoutATargetTheDefaultSelectsTheInterfaceDeclarativeServicesWouldBind() {
        register("ib1_1_ffff", 11, 0);
        register("ib0_1_ffff", 10, 0);
        assertNull(rules.refusal(null, config("ib0_1_ffff", null)), "the lowest service.id");
        assertEquals("property link.target selects interface ib0_1_ffff, but link is ib1_1_ffff: set link.target to "
                + "(ipoib.link=ib1_1_ffff)", rules.refusal(null, config("ib1_1_ffff", null)));
    }

    @Test
    void theHighestRankingComesFirst() {
        register("ib0_1_ffff", 10, 0);
        register("ib1_1_ffff", 11, 5);
        assertNull(rules.refusal(null, config("ib1_1_ffff", "(ipoib.link=*)")));
        assertEquals("property link.target selects interface ib1_1_ffff, but link is ib0_1_ffff: set link.target to "
                + "(ipoib.link=ib0_1_ffff)", rules.refusal(null, config("ib0_1_ffff", "(ipoib.link=*)")));
    }

    @Test
    void aTargetThatSelectsNothingOrIsNoFilterIsRefusedSayingWhatIsAllowed() {
        register("ib0_1_ffff", 10, 0);
        assertEquals("invalid ipoib.netdev property 'link.target' value '(ipoib.link=ib7_1_ffff)': selects no interface: "
                + "allowed (ipoib.link=ib0_1_ffff)", rules.refusal(null, config("ib0_1_ffff", "(ipoib.link=ib7_1_ffff)")));
        String refusal = rules.refusal(null, config("ib0_1_ffff", "(ipoib.link=ib0_1_ffff"));
        assertEquals(true, refusal.startsWith("invalid ipoib.netdev property 'link.target' value '(ipoib.link=ib0_1_ffff': "
                + "not a service filter (") && refusal.endsWith("): allowed (ipoib.link=<link>)"), refusal);
    }

    @Test
    void aLinkThatNamesNoInterfaceIsRefusedNamingThoseThatExist() {
        register("ib0_1_ffff", 10, 0);
        register("ib1_1_ffff", 11, 0);
        assertEquals("invalid ipoib.netdev property 'link' value 'ib9_1_ffff': no such interface: allowed one of those "
                + "ipoib:links shows (ib0_1_ffff, ib1_1_ffff)", rules.refusal(null, config("ib9_1_ffff", "(ipoib.link=ib9_1_ffff)")));
    }
}
