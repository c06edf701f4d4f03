package ipoib.verbs.loopback.internal;

import ipoib.api.config.ConfigurationRules;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** The rules of the {@value LoopbackProvider#PID} configuration, for a check before it is stored. */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + LoopbackProvider.PID)
public final class LoopbackRules implements ConfigurationRules {
    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        return LoopbackProvider.refusal(properties);
    }
}
