package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsProvider;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The hardware verbs provider: registered with {@code ipoib.provider=fabric} whether or not the
 * machine has RDMA devices; without them {@link #status()} says why (no kernel support, empty
 * device list, libibverbs missing, a bad configuration). Activation never throws: a failure
 * becomes the status and is logged once.
 */
@Component(configurationPid = FabricVerbsProvider.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = VerbsProvider.class, immediate = true, property = VerbsProvider.NAME_PROPERTY + "=fabric")
@Designate(ocd = FabricConfiguration.class)
public final class FabricVerbsProvider implements VerbsProvider {

    /** Configuration PID. */
    public static final String PID = "ipoib.verbs.fabric";

    private final FabricLog log;
    private final FabricRuntime runtime;
    private final ProviderStatus configurationProblem;

    @Activate
    public FabricVerbsProvider(BundleContext context, FabricConfiguration configuration,
                               java.util.Map<String, Object> properties,
                               @Reference(service = LoggerFactory.class) Logger logger) {
        this(configuration, properties, logger, LibraryLocations.fromProperties(context::getProperty));
    }

    /** Outside a framework: the library directories of the system properties. */
    FabricVerbsProvider(FabricConfiguration configuration, java.util.Map<String, Object> properties, Logger logger) {
        this(configuration, properties, logger, LibraryLocations.fromProperties(System::getProperty));
    }

    private FabricVerbsProvider(FabricConfiguration configuration, java.util.Map<String, Object> properties,
                                Logger logger, LibraryLocations libraries) {
        this.log = osgiLog(logger);
        FabricRuntime started = null;
        ProviderStatus problem = null;
        try {
            started = FabricRuntime.start(ConfigCheck.settings(configuration, properties, libraries), log);
        } catch (IllegalArgumentException e) {
            problem = ProviderStatus.unavailable("invalid configuration: " + e.getMessage());
            log.error("fabric provider not started: " + e.getMessage(), null);
        } catch (RuntimeException | LinkageError e) {
            // e.g. native access denied: the framework must keep running.
            problem = ProviderStatus.unavailable("fabric provider failed to start: " + e);
            log.error("fabric provider failed to start", e);
        }
        this.runtime = started;
        this.configurationProblem = problem;
    }

    private static FabricLog osgiLog(Logger logger) {
        return new FabricLog() {
            @Override
            public void info(String message) {
                logger.info(message);
            }

            @Override
            public void warn(String message, Throwable cause) {
                if (cause == null) {
                    logger.warn(message);
                } else {
                    logger.warn(message, cause);
                }
            }

            @Override
            public void error(String message, Throwable cause) {
                if (cause == null) {
                    logger.error(message);
                } else {
                    logger.error(message, cause);
                }
            }
        };
    }

    @Deactivate
    void deactivate() {
        if (runtime != null) {
            try {
                runtime.close();
            } catch (RuntimeException | LinkageError e) {
                log.error("stopping the fabric provider failed", e);
            }
        }
    }

    @Override
    public String name() {
        return "fabric";
    }

    @Override
    public ProviderStatus status() {
        return runtime == null ? configurationProblem : runtime.status();
    }

    @Override
    public List<Device> devices() {
        return runtime == null ? List.of() : runtime.devices();
    }
}
