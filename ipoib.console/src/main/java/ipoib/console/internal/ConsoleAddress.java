package ipoib.console.internal;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.osgi.framework.BundleContext;
import org.osgi.framework.FrameworkEvent;
import org.osgi.framework.FrameworkListener;
import org.osgi.framework.startlevel.BundleStartLevel;
import org.osgi.framework.startlevel.FrameworkStartLevel;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.servlet.runtime.HttpServiceRuntime;
import org.osgi.service.servlet.runtime.HttpServiceRuntimeConstants;

/**
 * Tells the operator where the console is once the HTTP service runs, or, when it did not start
 * by the time the bundles of its start level have started (typically: the port is taken), why
 * not: one line on stderr (stdout belongs to the shell's command output in script mode).
 */
@Component(immediate = true, service = {})
public final class ConsoleAddress implements FrameworkListener {
    static final String HTTP_BUNDLE = "org.apache.felix.http.jetty12";

    private final PrintStream err = new PrintStream(new FileOutputStream(FileDescriptor.err), true, StandardCharsets.UTF_8);
    private final BundleContext context;
    private boolean told;

    @Activate
    public ConsoleAddress(BundleContext context) {
        this.context = context;
        context.addFrameworkListener(this);
    }

    @Deactivate
    void deactivate() {
        context.removeFrameworkListener(this);
    }

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC)
    synchronized void bindRuntime(HttpServiceRuntime runtime) {
        if (!told) {
            told = true;
            err.println("ipoib: web console at " + base(runtime) + "/system/console/ipoib (metrics at " + base(runtime)
                    + "/metrics)");
        }
    }

    synchronized void unbindRuntime(HttpServiceRuntime runtime) {
        // The address is said once; a restarted HTTP service says nothing new.
    }

    @Override
    public synchronized void frameworkEvent(FrameworkEvent event) {
        if (told || event.getType() != FrameworkEvent.STARTLEVEL_CHANGED) {
            return;
        }
        int httpLevel = Integer.MAX_VALUE;
        for (var b : context.getBundles()) {
            if (HTTP_BUNDLE.equals(b.getSymbolicName())) {
                httpLevel = b.adapt(BundleStartLevel.class).getStartLevel();
            }
        }
        int now = context.getBundle(0).adapt(FrameworkStartLevel.class).getStartLevel();
        if (now > httpLevel) {
            told = true;
            String port = context.getProperty(ConsoleAccess.PORT_PROPERTY);
            err.println("ipoib: web console not available: the HTTP service did not start on "
                    + context.getProperty(ConsoleAccess.HOST_PROPERTY) + ":" + (port == null ? "8080" : port)
                    + " (port in use? start with IPOIB_JAVA_OPTS=-D" + ConsoleAccess.PORT_PROPERTY
                    + "=<port>, 0 for any free one)");
        }
    }

    static String base(HttpServiceRuntime runtime) {
        Object endpoint = runtime.getRuntimeDTO().serviceDTO.properties.get(HttpServiceRuntimeConstants.HTTP_SERVICE_ENDPOINT);
        String first = null;
        if (endpoint instanceof String s) {
            first = s;
        } else if (endpoint instanceof String[] a && a.length > 0) {
            first = a[0];
        } else if (endpoint instanceof java.util.Collection<?> c && !c.isEmpty()) {
            first = String.valueOf(c.iterator().next());
        }
        if (first == null) {
            return "http://127.0.0.1:8080";
        }
        return first.endsWith("/") ? first.substring(0, first.length() - 1) : first;
    }
}
