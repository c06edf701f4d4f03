package ipoib.launcher;

import java.util.Hashtable;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.hooks.bundle.EventHook;
import org.osgi.framework.hooks.service.EventListenerHook;

/**
 * What must happen while this bundle starts, before SCR activates its components: the default
 * interfaces' switch ({@link DefaultsSwitch}), and the gate of the framework events
 * ({@link FrameworkEventGate}), in place before the log service starts (this bundle starts at a
 * lower start level than the log service) so that no event of the start reaches it unwanted.
 */
public final class LauncherActivator implements BundleActivator {
    private final DefaultsSwitch defaults = new DefaultsSwitch();
    private ServiceRegistration<?> gate;

    @Override
    public void start(BundleContext context) throws BundleException {
        defaults.start(context);
        gate = context.registerService(new String[] {FrameworkEventGate.class.getName(),
                        EventListenerHook.class.getName(), EventHook.class.getName()},
                new FrameworkEventGate(ConsoleLog.startupLevel(context.getProperty(ConsoleLog.FRAMEWORK_PROPERTY))),
                new Hashtable<>());
    }

    @Override
    public void stop(BundleContext context) {
        defaults.stop(context);
        // The framework unregisters the gate with the bundle; explicit for the reader.
        if (gate != null) {
            try {
                gate.unregister();
            } catch (IllegalStateException alreadyGone) {
                // Unregistered as the bundle stopped.
            }
            gate = null;
        }
    }
}
