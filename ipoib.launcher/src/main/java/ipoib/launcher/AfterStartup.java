package ipoib.launcher;

import java.util.function.Consumer;
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
 * its final start level (so every component of the run is active), gogo.shell has registered
 * its commands (echo, grep, each, ...), which it does from its own thread after it started, and
 * the default configurations are stored ({@link DefaultsApplied}). On a
 * loaded machine that can take long, so the wait is for the commands themselves, bounded only by
 * {@value #WAIT_PROPERTY} (default {@value #DEFAULT_WAIT_SECONDS} s); when they never come, the
 * action does not run and the caller is told why instead.
 */
final class AfterStartup implements FrameworkListener {

    /** Framework property: seconds to wait for gogo.shell's commands after start-up. */
    static final String WAIT_PROPERTY = "ipoib.shell.wait";
    static final long DEFAULT_WAIT_SECONDS = 300;
    /** How long the action waits for the default configurations to be stored ({@link DefaultsApplied}). */
    private static final long DEFAULTS_WAIT_MILLIS = 10_000;
    /** One of the commands gogo.shell registers together, all at once. */
    private static final String SHELL_COMMAND = "(&(osgi.command.scope=gogo)(osgi.command.function=grep))";

    private final BundleContext context;
    private final String threadName;
    private final Runnable action;
    private final Consumer<String> unavailable;
    private Thread thread;

    private AfterStartup(BundleContext context, String threadName, Runnable action, Consumer<String> unavailable) {
        this.context = context;
        this.threadName = threadName;
        this.action = action;
        this.unavailable = unavailable;
    }

    /**
     * @param action      what runs once the shell's commands are there
     * @param unavailable runs instead, with the error to show, when they are not within the bound
     */
    static AfterStartup run(BundleContext context, String threadName, Runnable action, Consumer<String> unavailable) {
        AfterStartup gate = new AfterStartup(context, threadName, action, unavailable);
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
        thread = new Thread(this::awaitShellThenRun, threadName);
        thread.start();
    }

    private void awaitShellThenRun() {
        long seconds;
        try {
            seconds = waitSeconds(context.getProperty(WAIT_PROPERTY));
        } catch (IllegalArgumentException e) {
            unavailable.accept(e.getMessage());
            return;
        }
        ServiceTracker<Object, Object> tracker;
        try {
            tracker = new ServiceTracker<>(context, context.createFilter(SHELL_COMMAND), null);
        } catch (InvalidSyntaxException e) {
            throw new IllegalStateException(SHELL_COMMAND, e);
        }
        tracker.open();
        try {
            if (tracker.waitForService(seconds * 1000) == null) {
                unavailable.accept("gogo.shell has not registered its commands (echo, grep, ...) " + seconds
                        + " s after start-up: is the bundle org.apache.felix.gogo.shell there and started? "
                        + "(-D" + WAIT_PROPERTY + "=SECONDS waits longer)");
                return;
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // the framework is stopping
        } finally {
            tracker.close();
        }
        try {
            DefaultsApplied.await(context, DEFAULTS_WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return; // the framework is stopping
        }
        action.run();
    }

    /** The bound, from the property's text (absent: the default). */
    static long waitSeconds(String text) {
        if (text == null || text.isBlank()) {
            return DEFAULT_WAIT_SECONDS;
        }
        try {
            long seconds = Long.parseLong(text.strip());
            if (seconds >= 1 && seconds <= 86_400) {
                return seconds;
            }
        } catch (NumberFormatException e) {
            // Said below, with what is allowed.
        }
        throw new IllegalArgumentException("invalid launch property " + WAIT_PROPERTY + " value '" + text
                + "': allowed a number of seconds 1..86400");
    }
}
