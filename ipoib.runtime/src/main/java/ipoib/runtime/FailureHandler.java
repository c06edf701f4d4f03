package ipoib.runtime;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Where a control loop reports a task that threw: the engine's log. */
@FunctionalInterface
public interface FailureHandler {

    /**
     * Logs through java.util.logging (logger {@code ipoib.runtime}), for engines built without a
     * framework (benchmarks, tools); the appliance's console log shows those lines with the rest.
     */
    FailureHandler JAVA_LOGGING = (message, failure) ->
            Logger.getLogger("ipoib.runtime").log(Level.SEVERE, message, failure);

    void failed(String message, Throwable failure);
}
