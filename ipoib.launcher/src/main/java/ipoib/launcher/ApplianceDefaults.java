package ipoib.launcher;

import java.io.IOException;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * The appliance's default configuration: when no IPoIB interface is configured, one interface
 * per loopback HCA (loop0 and loop1, port 1, the default partition) so that the shell has a
 * working link right after start. Off with the framework property
 * {@code ipoib.defaults=false}.
 */
@Component(immediate = true, service = {})
public final class ApplianceDefaults {

    /** Framework property: "false" starts the appliance without default interfaces. */
    public static final String DEFAULTS_PROPERTY = "ipoib.defaults";
    static final String LINK_FACTORY_PID = "ipoib.link";

    /** The default interfaces: device, port, P_Key. */
    static final List<Map<String, Object>> INTERFACES = List.of(
            Map.of("device", "loop0", "port", 1, "pkey", "0xffff"),
            Map.of("device", "loop1", "port", 1, "pkey", "0xffff"));

    @Activate
    public ApplianceDefaults(BundleContext context, @Reference ConfigurationAdmin configurationAdmin,
                             @Reference(service = LoggerFactory.class) Logger log) {
        if ("false".equalsIgnoreCase(context.getProperty(DEFAULTS_PROPERTY))) {
            return;
        }
        try {
            Configuration[] existing = configurationAdmin.listConfigurations(
                    "(service.factoryPid=" + LINK_FACTORY_PID + ")");
            if (existing != null && existing.length > 0) {
                return;
            }
            for (Map<String, Object> values : INTERFACES) {
                Configuration c = configurationAdmin.getFactoryConfiguration(LINK_FACTORY_PID,
                        "default-" + values.get("device"), "?");
                Dictionary<String, Object> props = new Hashtable<>(values);
                c.update(props);
            }
            log.info("created the default interfaces on loop0 and loop1 (" + DEFAULTS_PROPERTY + "=false disables)");
        } catch (IOException | InvalidSyntaxException e) {
            log.error("could not create the default interfaces", e);
        }
    }
}
