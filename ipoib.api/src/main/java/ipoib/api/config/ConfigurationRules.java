package ipoib.api.config;

import java.util.Map;
import org.osgi.annotation.versioning.ProviderType;

/**
 * The rules a component holds its configurations to, beyond the metatype's types and ranges:
 * forms of texts (a P_Key, an address, a device name), values that must agree with each other or
 * with the other configurations (a name or an address in use), unknown properties. A bundle
 * registers one per PID or factory PID it configures, with {@value #PID_PROPERTY}, and its
 * component applies the same rules to what Configuration Admin delivers; a tool that writes
 * configurations ({@code ipoib:config}) asks first, so that a refused value is never stored.
 */
@ProviderType
public interface ConfigurationRules {

    /** Service property: the PID or factory PID the rules are for. */
    String PID_PROPERTY = "ipoib.config.pid";

    /**
     * Why a configuration would be refused, or null when it is allowed.
     *
     * @param pid the configuration's PID (for a factory configuration its own PID, so that it is
     *            not compared with itself), or null for a configuration not created yet
     * @param properties every property the configuration would hold after the update
     * @return one line per refused property naming the property, the value (cut when long) and
     *         what is allowed; null when allowed
     */
    String refusal(String pid, Map<String, ?> properties);
}
