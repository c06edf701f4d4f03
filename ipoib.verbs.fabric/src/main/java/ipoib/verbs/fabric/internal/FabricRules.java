package ipoib.verbs.fabric.internal;

import ipoib.api.config.ConfigurationRules;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;

/**
 * The hardware provider's rules for {@code ipoib:config}: the same check the provider makes, so
 * that a value it would refuse (a library under /tmp, a broken regular expression) is never stored.
 */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + FabricVerbsProvider.PID)
public final class FabricRules implements ConfigurationRules {
    private final LibraryLocations libraries;

    @Activate
    public FabricRules(BundleContext context) {
        this.libraries = LibraryLocations.fromProperties(context::getProperty);
    }

    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        return FabricProviderComponent.refusal(properties, libraries);
    }
}
