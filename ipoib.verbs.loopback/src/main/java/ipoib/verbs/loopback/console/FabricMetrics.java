package ipoib.verbs.loopback.console;

import ipoib.verbs.loopback.internal.FabricCommands;
import java.util.Map;
import java.util.function.Supplier;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;

/**
 * The loopback fabric's counters for the console's /metrics: two counter sources (services of type
 * {@code Supplier<Map<String, Long>>} with {@code ipoib.metrics.prefix}), the fabric's packets and
 * drops by reason ({@code ipoib_fabric_*}) and the emulated SA's requests, answers and traps
 * ({@code ipoib_fabric_sa_*}).
 */
@Component(immediate = true, service = {})
public final class FabricMetrics {
    static final String PREFIX_PROPERTY = "ipoib.metrics.prefix";

    private final ServiceRegistration<?> fabric;
    private final ServiceRegistration<?> sa;

    @Activate
    public FabricMetrics(BundleContext context, @Reference FabricCommands commands) {
        Supplier<Map<String, Long>> packets = () -> commands.fabric().counters().snapshot();
        Supplier<Map<String, Long>> administrator = () -> commands.subnetAdministrator().statistics();
        fabric = context.registerService(Supplier.class, packets, props("ipoib_fabric"));
        sa = context.registerService(Supplier.class, administrator, props("ipoib_fabric_sa"));
    }

    private static java.util.Hashtable<String, Object> props(String prefix) {
        java.util.Hashtable<String, Object> p = new java.util.Hashtable<>();
        p.put(PREFIX_PROPERTY, prefix);
        return p;
    }

    @Deactivate
    void deactivate() {
        for (ServiceRegistration<?> r : new ServiceRegistration<?>[] {fabric, sa}) {
            try {
                r.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework is stopping.
            }
        }
    }
}
