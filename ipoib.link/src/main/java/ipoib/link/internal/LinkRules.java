package ipoib.link.internal;

import ipoib.api.config.ConfigurationRules;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.ConfigValues;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The rules of {@value IpoibLinkComponent#FACTORY_PID} configurations, for a check before one is
 * stored ({@code ipoib:config}, {@code ipoib:create}): what the component checks (metatype, P_Key,
 * scope, name; a name, or an HCA, port and partition, another interface holds), and that the
 * provider the configuration selects has the device and port. The component does not refuse a
 * missing device or port itself (the provider may be about to get it, as when {@code --hosts}
 * writes the loopback's HCAs and their interfaces at once); the interface then stays DOWN with
 * the reason.
 */
@Component(service = {ConfigurationRules.class, LinkRules.class},
        property = ConfigurationRules.PID_PROPERTY + "=" + IpoibLinkComponent.FACTORY_PID)
public final class LinkRules implements ConfigurationRules {
    private final Map<VerbsProvider, Map<String, Object>> providers = new ConcurrentHashMap<>();

    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        LinkConfig config;
        try {
            config = LinkConfig.checked(ConfigValues.of(LinkConfiguration.class, properties), properties);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        String conflict = LinkClaims.INSTANCE.conflict(LinkClaims.INSTANCE.ownerOf(pid), config);
        if (conflict != null) {
            Object named = properties.get("name");
            String from = named == null || named.toString().isBlank()
                    ? " ('name' empty: derived from 'device' " + config.device() + ", 'port' " + config.port()
                            + " and 'pkey' " + config.pkey() + ")"
                    : " ('name')";
            return "invalid " + IpoibLinkComponent.FACTORY_PID + " configuration: interface name '" + config.name() + "'"
                    + from + ": " + conflict + "; allowed a name, and an HCA, port and partition, that no other "
                    + "interface holds";
        }
        return missingPort(config, String.valueOf(properties.containsKey("provider.target")
                ? properties.get("provider.target") : "(ipoib.provider=loopback)"));
    }

    /** Why the selected provider cannot run the configuration (no such device or port), or null. */
    private String missingPort(LinkConfig config, String target) {
        Filter filter;
        try {
            filter = FrameworkUtil.createFilter(target);
        } catch (InvalidSyntaxException e) {
            return "invalid " + IpoibLinkComponent.FACTORY_PID + " property 'provider.target' value '" + target
                    + "': allowed a service filter such as (ipoib.provider=loopback) (" + e.getMessage() + ")";
        }
        for (Map.Entry<VerbsProvider, Map<String, Object>> p : providers.entrySet()) {
            if (!filter.matches(p.getValue())) {
                continue;
            }
            Device device = p.getKey().device(config.device()).orElse(null);
            if (device == null) {
                return "invalid " + IpoibLinkComponent.FACTORY_PID + " property 'device' value '" + config.device()
                        + "': allowed a device of provider " + p.getKey().name() + ": " + names(p.getKey());
            }
            if (config.port() > device.ports().size()) {
                return "invalid " + IpoibLinkComponent.FACTORY_PID + " property 'port' value " + config.port()
                        + ": allowed 1.." + device.ports().size() + " (the ports of " + device.name() + ")";
            }
        }
        return null;
    }

    private static String names(VerbsProvider provider) {
        var names = provider.devices().stream().map(Device::name).toList();
        return names.isEmpty() ? "no devices" : "devices " + String.join(", ", names);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProvider(VerbsProvider provider, Map<String, Object> properties) {
        providers.put(provider, properties);
    }

    void removeProvider(VerbsProvider provider) {
        providers.remove(provider);
    }
}
