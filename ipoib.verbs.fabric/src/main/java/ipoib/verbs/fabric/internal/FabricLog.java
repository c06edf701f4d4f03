package ipoib.verbs.fabric.internal;

/**
 * Where the provider's core logs: the OSGi log service in the framework, the console in the
 * forked test hosts. Kept apart so the core runs without a framework.
 */
public interface FabricLog {
    void info(String message);

    void warn(String message, Throwable cause);

    void error(String message, Throwable cause);

    /** Logs to System.Logger (used outside a framework). */
    static FabricLog system(String name) {
        System.Logger logger = System.getLogger(name);
        return new FabricLog() {
            @Override
            public void info(String message) {
                logger.log(System.Logger.Level.INFO, message);
            }

            @Override
            public void warn(String message, Throwable cause) {
                logger.log(System.Logger.Level.WARNING, message, cause);
            }

            @Override
            public void error(String message, Throwable cause) {
                logger.log(System.Logger.Level.ERROR, message, cause);
            }
        };
    }
}
