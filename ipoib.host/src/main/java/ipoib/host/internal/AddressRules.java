package ipoib.host.internal;

import ipoib.api.config.ConfigurationRules;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** The rules of {@value AddressConfigurator#FACTORY_PID} configurations, for a check before one is stored. */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + AddressConfigurator.FACTORY_PID)
public final class AddressRules implements ConfigurationRules {
    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        return AddressConfigurator.refusal(pid, properties);
    }
}
