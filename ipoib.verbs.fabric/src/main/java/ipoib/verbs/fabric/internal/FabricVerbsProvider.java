package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsProvider;
import java.util.List;
import org.osgi.service.log.Logger;

/**
 * The hardware verbs provider over one configuration: registered by {@link FabricProviderComponent}
 * with {@code ipoib.provider=fabric} whether or not the machine has RDMA devices; without them
 * {@link #status()} says why (no kernel support, empty device list, libibverbs missing, a bad
 * configuration). Construction never throws: a failure becomes the status and is logged once.
 */
public final class FabricVerbsProvider implements VerbsProvider {

    /** Configuration PID. */
    public static final String PID = "ipoib.verbs.fabric";

    private final FabricLog log;
    private final FabricRuntime runtime;
    private final ProviderStatus configurationProblem;

    /** Outside a framework: the library directories of the system properties. */
    FabricVerbsProvider(FabricConfiguration configuration, java.util.Map<String, Object> properties, Logger logger) {
        this(configuration, properties, logger, LibraryLocations.fromProperties(System::getProperty));
    }

    /** With the library directories of the framework's launch properties. */
    FabricVerbsProvider(FabricConfiguration configuration, java.util.Map<String, ?> properties, Logger logger,
                        LibraryLocations libraries) {
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

    /** Stops the runtime (closes the devices); again is harmless. */
    void close() {
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
