package ipoib.console.internal;

import ipoib.api.config.ConfigurationRules;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** The rules of the {@value ConsoleAccess#PID} configuration, for a check before it is stored. */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + ConsoleAccess.PID)
public final class ConsoleRules implements ConfigurationRules {
    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        return ConsoleAccess.refusal(properties);
    }
}
