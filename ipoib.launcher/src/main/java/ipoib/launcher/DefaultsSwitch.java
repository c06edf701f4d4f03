package ipoib.launcher;

import org.osgi.framework.Bundle;
import org.osgi.framework.BundleActivator;
import org.osgi.framework.BundleContext;
import org.osgi.framework.BundleException;

/**
 * The switch of the appliance's default interfaces. They are Configurator JSON in the
 * {@code ipoib.defaults} bundle, which the Configurator applies when that bundle starts; the
 * appliance installs it at a start level above this bundle's. With the framework property
 * {@code ipoib.defaults=false} this activator clears its autostart before the framework reaches
 * that level, so it never starts and no default is applied. A bundle activator rather than a DS
 * component: it must run while this bundle starts, not whenever SCR gets to it.
 */
public final class DefaultsSwitch implements BundleActivator {

    /** Framework property: "false" starts the appliance without the default interfaces. */
    public static final String DEFAULTS_PROPERTY = "ipoib.defaults";
    /** The bundle whose Configurator JSON holds the default interfaces. */
    public static final String DEFAULTS_BUNDLE = "ipoib.defaults";

    @Override
    public void start(BundleContext context) throws BundleException {
        if (!"false".equalsIgnoreCase(context.getProperty(DEFAULTS_PROPERTY))) {
            return;
        }
        for (Bundle b : context.getBundles()) {
            if (DEFAULTS_BUNDLE.equals(b.getSymbolicName())) {
                b.stop(); // persistently: its autostart is cleared even though it has not started
            }
        }
    }

    @Override
    public void stop(BundleContext context) {
        // Nothing to undo: the default configurations belong to ConfigAdmin once applied.
    }
}
