package ipoib.launcher;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.util.tracker.ServiceTracker;

/**
 * Runs an action once on its own thread when the appliance is ready: the framework has reached
 * its final start level (so every component of the run is active) and gogo.shell has registered
 * its commands (echo, grep, each, ...), which it does from its own thread after it started.
 */
final class AfterStartup implements FrameworkListener {

    private static final long SHELL_COMMANDS_TIMEOUT_MS = 10_000;

    private final BundleContext context;
    private final String threadName;
    private final Runnable action;
    private Thread thread;

    private AfterStartup(BundleContext context, String threadName, Runnable action) {
        this.context = context;
        this.threadName = threadName;
        this.action = action;
    }

    static AfterStartup run(BundleContext context, String threadName, Runnable action) {
        AfterStartup gate = new AfterStartup(context, threadName, action);
        context.addFrameworkListener(gate);
        if (gate.startLevelReached()) {
            gate.start();
        }
        return gate;
    }

    void close() {
        context.removeFrameworkListener(this);
    }

    /**
     * Felix marks the system bundle ACTIVE before it raises the start level, so the state alone
     * does not say that every bundle has started: compare the start level with its target.
     */
    private boolean startLevelReached() {
        Bundle system = context.getBundle(Constants.SYSTEM_BUNDLE_LOCATION);
        String beginning = context.getProperty(Constants.FRAMEWORK_BEGINNING_STARTLEVEL);
        int target = beginning == null ? 1 : Integer.parseInt(beginning.strip());
        return system.getState() == Bundle.ACTIVE && system.adapt(FrameworkStartLevel.class).getStartLevel() >= target;
    }

    @Override
    public void frameworkEvent(FrameworkEvent event) {
        if (event.getType() == FrameworkEvent.STARTED) {
            start();
        }
    }

    private synchronized void start() {
        if (thread != null) {
            return;
        }
        thread = new Thread(() -> {
            awaitShellCommands();
            action.run();
        }, threadName);
        thread.start();
    }

    private void awaitShellCommands() {
        String filter = "(&(osgi.command.scope=gogo)(osgi.command.function=grep))";
        try {
            ServiceTracker<Object, Object> tracker = new ServiceTracker<>(context, context.createFilter(filter), null);
            tracker.open();
            try {
                tracker.waitForService(SHELL_COMMANDS_TIMEOUT_MS);
            } finally {
                tracker.close();
            }
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(filter, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
