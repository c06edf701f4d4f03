package ipoib.itest;

import ipoib.api.link.IpoibLink;
import ipoib.api.verbs.VerbsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.junit.rules.TestRule;
import org.junit.runner.Description;
import org.junit.runners.model.Statement;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.admin.LoggerAdmin;
import org.osgi.service.log.admin.LoggerContext;

/**
 * The state a test class of {@link SharedFrameworkIT} finds: as a framework of its own would be.
 * The classes share one framework (its start, about a second of installing and starting the
 * bundles and activating their components, is most of a small class's time), so before the first
 * test of each class this rule puts back what the class before it changed: every configuration
 * deleted, the log service and every project bundle but the api restarted (a fresh loopback
 * fabric: no faults, port or P_Key changes, switches; no interfaces, addresses, neighbours or
 * groups; no log entries, whose exceptions would hold the classes of what logged them), every
 * bundle active, the log levels as the framework started. It then checks what no restart undoes:
 * a service the previous class registered and did not unregister fails the class, naming it.
 * Last it stops the project bundles the class does not name, so that the class runs with the
 * bundles it was written for (a link's frames, for one, with no IP stack sending its own); named
 * none, it runs with all. A class in the suite declares it as a class rule, which runs before
 * Pax Exam injects the test's services (a restarted bundle's service injected before would be
 * gone): {@code @ClassRule public static final SharedFramework SHARED = new
 * SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link");}. (In the framework JUnit
 * runs each test method as a request of its own, so a class rule runs before every test; it acts
 * when the class differs from the last one's.)
 */
public final class SharedFramework implements TestRule {
    private static final Duration SETTLE = Duration.ofSeconds(20);
    /** The class whose tests ran last in this framework, or null before the first. */
    private static Class<?> previous;
    /** The probe's own services (Pax Exam's invokers) when the first class began. */
    private static Set<Long> probeServices;
    /** The log levels of the root logger context when the first class began. */
    private static Map<String, LogLevel> logLevels;

    /** The project bundles the class runs with (besides the api), or empty for all. */
    private final Set<String> active;

    /** The class runs with these project bundles (and the api) active; with all when none are named. */
    public SharedFramework(String... projectBundles) {
        this.active = Set.of(projectBundles);
    }

    @Override
    public Statement apply(Statement base, Description description) {
        return new Statement() {
            @Override
            public void evaluate() throws Throwable {
                enter(description.getTestClass(), active);
                base.evaluate();
            }
        };
    }

    private static synchronized void enter(Class<?> testClass, Set<String> active) throws Exception {
        if (previous == testClass) {
            return;
        }
        BundleContext context = FrameworkUtil.getBundle(SharedFramework.class).getBundleContext();
        Class<?> left = previous;
        previous = testClass;
        if (left == null) {
            probeServices = serviceIds(context.getBundle());
            logLevels = new HashMap<>(service(context, LoggerAdmin.class).getLoggerContext(null).getLogLevels());
        } else {
            reset(context, active);
            Set<Long> registered = serviceIds(context.getBundle());
            registered.removeAll(probeServices);
            if (!registered.isEmpty()) {
                // Reported once, by the first test of the next class: the classes after it run on.
                probeServices.addAll(registered);
                throw new AssertionError(left.getSimpleName() + " left services registered in the shared framework: "
                        + describe(context, registered));
            }
        }
        for (Bundle b : projectBundles(context)) {
            if (!runs(b, active)) {
                b.stop();
            }
        }
    }

    /** Whether the class runs with this bundle: every bundle but the project's unnamed ones. */
    private static boolean runs(Bundle b, Set<String> active) {
        return active.isEmpty() || active.contains(b.getSymbolicName()) || !b.getSymbolicName().startsWith("ipoib.")
                || b.getSymbolicName().equals("ipoib.api");
    }

    /** The project's bundles but the api (whose packages every class uses), in the order they were installed. */
    private static List<Bundle> projectBundles(BundleContext context) {
        return Arrays.stream(context.getBundles())
                .filter(b -> b.getSymbolicName().startsWith("ipoib.") && !b.getSymbolicName().equals("ipoib.api")
                        && b.getHeaders().get(Constants.FRAGMENT_HOST) == null)
                .sorted(Comparator.comparingLong(Bundle::getBundleId))
                .collect(Collectors.toCollection(ArrayList::new));
    }

    /**
     * Back to the framework's state after its start, as far as the project bundles keep state;
     * of the project's bundles, those the class runs with started again.
     */
    private static void reset(BundleContext context, Set<String> active) throws Exception {
        ConfigurationAdmin configurationAdmin = service(context, ConfigurationAdmin.class);
        Configuration[] configurations = configurationAdmin.listConfigurations(null);
        if (configurations != null) {
            for (Configuration c : configurations) {
                c.delete();
            }
        }
        List<Bundle> project = projectBundles(context);
        for (int i = project.size() - 1; i >= 0; i--) {
            project.get(i).stop();
        }
        Bundle log = Arrays.stream(context.getBundles()).filter(b -> "org.apache.felix.log".equals(b.getSymbolicName()))
                .findFirst().orElseThrow(() -> new AssertionError("no org.apache.felix.log in the framework"));
        log.stop();
        log.start();
        LoggerContext root = service(context, LoggerAdmin.class).getLoggerContext(null);
        root.setLogLevels(logLevels);
        for (Bundle b : project) {
            if (runs(b, active)) {
                b.start();
            }
        }

        Await.until("every bundle the class runs with active", SETTLE, () -> Arrays.stream(context.getBundles())
                .filter(b -> runs(b, active) && b.getHeaders().get(Constants.FRAGMENT_HOST) == null)
                .allMatch(b -> b.getState() == Bundle.ACTIVE));
        Await.until("no configuration", SETTLE, () -> {
            try {
                return configurationAdmin.listConfigurations(null) == null;
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        Await.until("no interface", SETTLE, () -> {
            try {
                return context.getServiceReferences(IpoibLink.class, null).isEmpty();
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        });
        if (project.stream().anyMatch(b -> b.getSymbolicName().equals("ipoib.verbs.loopback") && runs(b, active))) {
            Await.until("the loopback fabric with its default two HCAs", SETTLE, () -> {
                try {
                    var refs = context.getServiceReferences(VerbsProvider.class, "(" + VerbsProvider.NAME_PROPERTY + "=loopback)");
                    return !refs.isEmpty() && context.getService(refs.iterator().next()).devices().size() == 2;
                } catch (Exception e) {
                    return false;
                }
            });
        }
    }

    private static Set<Long> serviceIds(Bundle bundle) {
        ServiceReference<?>[] refs = bundle.getRegisteredServices();
        Set<Long> ids = new TreeSet<>();
        if (refs != null) {
            for (ServiceReference<?> r : refs) {
                ids.add((Long) r.getProperty(Constants.SERVICE_ID));
            }
        }
        return ids;
    }

    private static String describe(BundleContext context, Set<Long> ids) {
        return Arrays.stream(context.getBundle().getRegisteredServices())
                .filter(r -> ids.contains((Long) r.getProperty(Constants.SERVICE_ID)))
                .map(r -> Arrays.toString((String[]) r.getProperty(Constants.OBJECTCLASS)))
                .collect(Collectors.joining(", "));
    }

    private static <T> T service(BundleContext context, Class<T> type) {
        ServiceReference<T> ref = context.getServiceReference(type);
        if (ref == null) {
            throw new AssertionError("no " + type.getName() + " in the framework");
        }
        return context.getService(ref);
    }
}
