package ipoib.arp.internal;

import ipoib.api.host.InterfaceAddresses;
import ipoib.api.link.IpoibLink;
import java.lang.reflect.Proxy;
import org.osgi.service.log.Logger;

/**
 * The ARP resolver without OSGi, for the benchmarks in {@code ipoib.bench}: the default
 * configuration, a logger that prints warnings and errors, the address table and the link set
 * as Declarative Services would (the reference methods are package-private).
 */
public final class BenchArp {
    private BenchArp() {}

    public static ArpResolver create(InterfaceAddresses addresses, IpoibLink link) {
        ClassLoader loader = BenchArp.class.getClassLoader();
        ArpConfiguration defaults = (ArpConfiguration) Proxy.newProxyInstance(loader, new Class<?>[] {ArpConfiguration.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "annotationType" -> ArpConfiguration.class;
                    case "toString" -> "ArpConfiguration(defaults)";
                    case "hashCode" -> 0;
                    case "equals" -> proxy == args[0];
                    default -> method.getDefaultValue();
                });
        Logger log = (Logger) Proxy.newProxyInstance(loader, new Class<?>[] {Logger.class}, (proxy, method, args) -> {
            String name = method.getName();
            if ((name.equals("warn") || name.equals("error")) && args != null && args.length > 0) {
                System.err.println("ARP " + name + ": " + args[0]);
            }
            Class<?> r = method.getReturnType();
            return r == boolean.class ? Boolean.FALSE : r == String.class ? "bench" : null;
        });
        ArpResolver arp = new ArpResolver(defaults, java.util.Map.of(), log);
        arp.setAddresses(addresses);
        arp.addLink(link);
        return arp;
    }

    public static void close(ArpResolver arp) {
        arp.deactivate();
    }
}
