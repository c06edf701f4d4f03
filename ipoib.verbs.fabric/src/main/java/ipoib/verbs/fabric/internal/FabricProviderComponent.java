package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.ConfigValues;
import ipoib.runtime.config.LastGoodConfiguration;
import java.util.Hashtable;
import java.util.Map;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The hardware provider's configuration and registration. A configuration is checked before
 * anything is loaded; a refused one changes nothing that runs: one WARN line names the property,
 * the value and what is allowed, and the configuration in force is stored again (one refused
 * before any was in force is deleted, and the defaults run). A new valid configuration replaces
 * the provider: links see it go and come back, as with the loopback provider.
 */
@Component(configurationPid = FabricVerbsProvider.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = {}, immediate = true)
@Designate(ocd = FabricConfiguration.class)
public final class FabricProviderComponent {
    private static final ipoib.runtime.ConfigCheck METATYPE = ipoib.runtime.ConfigCheck.of(FabricConfiguration.class);

    private final BundleContext context;
    private final Logger logger;
    private final LibraryLocations libraries;
    private final LastGoodConfiguration lastGood;

    // Guarded by this: the provider in force, its registration and the values it runs with.
    private FabricVerbsProvider provider;
    private ServiceRegistration<VerbsProvider> registration;
    private Wanted running;

    /** The values a provider runs with: an equal configuration does not restart it. */
    private record Wanted(String deviceFilter, int saTimeoutMillis, int saRetries, String smKey, String verbsLibrary,
                          String umadLibrary) {
        static Wanted of(FabricConfiguration c) {
            return new Wanted(c.deviceFilter(), c.saTimeoutMillis(), c.saRetries(), c.smKey(), c.verbsLibrary(),
                    c.umadLibrary());
        }
    }

    @Activate
    public FabricProviderComponent(BundleContext context, FabricConfiguration configuration,
                                   Map<String, Object> properties, @Reference ConfigurationAdmin configurationAdmin,
                                   @Reference(service = LoggerFactory.class) Logger logger) {
        this.context = context;
        this.logger = logger;
        this.libraries = LibraryLocations.fromProperties(context::getProperty);
        this.lastGood = new LastGoodConfiguration(logger::warn);
        lastGood.admin(configurationAdmin);
        apply(configuration, properties);
    }

    @Modified
    void modified(FabricConfiguration configuration, Map<String, Object> properties) {
        apply(configuration, properties);
    }

    /**
     * Why a configuration would be refused, or null: the metatype (unknown properties too), then
     * what it cannot say (a regular expression, a 64-bit key, a library outside the allowed places).
     */
    static String refusal(Map<String, ?> properties, LibraryLocations libraries) {
        String problems = METATYPE.problems(properties);
        if (problems != null) {
            return problems;
        }
        try {
            ConfigCheck.settings(ConfigValues.of(FabricConfiguration.class, properties), properties, libraries);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    private synchronized void apply(FabricConfiguration configuration, Map<String, Object> properties) {
        String refused = refusal(properties, libraries);
        if (refused != null) {
            lastGood.refused(properties, refused);
            if (provider == null) {
                start(ConfigValues.of(FabricConfiguration.class, Map.of()), Map.of());
            }
            return;
        }
        lastGood.accepted(properties);
        if (provider == null || !Wanted.of(configuration).equals(running)) {
            stop();
            start(configuration, properties);
        }
    }

    private void start(FabricConfiguration configuration, Map<String, ?> properties) {
        provider = new FabricVerbsProvider(configuration, properties, logger, libraries);
        running = Wanted.of(configuration);
        registration = context.registerService(VerbsProvider.class, provider,
                new Hashtable<>(Map.of(VerbsProvider.NAME_PROPERTY, "fabric")));
    }

    private void stop() {
        if (registration != null) {
            try {
                registration.unregister();
            } catch (IllegalStateException alreadyGone) {
                // The framework is stopping.
            }
            registration = null;
        }
        if (provider != null) {
            provider.close();
            provider = null;
        }
    }

    @Deactivate
    synchronized void deactivate() {
        stop();
    }
}
