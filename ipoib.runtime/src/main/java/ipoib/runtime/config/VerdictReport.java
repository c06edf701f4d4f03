package ipoib.runtime.config;

import ipoib.api.config.ConfigurationVerdicts;
import java.util.function.Consumer;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;

/**
 * Tells the registered {@link ConfigurationVerdicts} services what a component did with a
 * configuration, through the bundle that embeds this library (found from the class: no
 * component has to pass its context). Outside a framework (unit tests) there is none to tell.
 */
final class VerdictReport {
    private VerdictReport() {}

    static void tell(Consumer<ConfigurationVerdicts> verdict) {
        Bundle bundle = FrameworkUtil.getBundle(VerdictReport.class);
        BundleContext context = bundle == null ? null : bundle.getBundleContext();
        if (context == null) {
            return;
        }
        try {
            for (ServiceReference<ConfigurationVerdicts> reference : context.getServiceReferences(ConfigurationVerdicts.class,
                    null)) {
                ConfigurationVerdicts verdicts = context.getService(reference);
                if (verdicts != null) {
                    try {
                        verdict.accept(verdicts);
                    } finally {
                        context.ungetService(reference);
                    }
                }
            }
        } catch (InvalidSyntaxException | IllegalStateException stoppingOrNoFilter) {
            // The bundle is stopping (its context is invalid): nobody waits on its verdicts.
        } catch (RuntimeException listenerFailed) {
            // A listener's failure is its own; the component's configuration stands.
        }
    }
}
