package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import ipoib.api.verbs.VerbsProvider;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Dictionary;
import java.util.Hashtable;
import javax.inject.Inject;
import org.apache.felix.service.command.CommandProcessor;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.runner.RunWith;
import org.ops4j.pax.exam.Configuration;
import org.ops4j.pax.exam.Option;
import org.ops4j.pax.exam.junit.PaxExam;
import org.ops4j.pax.exam.spi.reactors.ExamReactorStrategy;
import org.ops4j.pax.exam.spi.reactors.PerSuite;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * The hardware provider in Felix on a machine without RDMA devices (CI, this project's build
 * machines): it registers anyway with {@code ipoib.provider=fabric}, says why it has no devices,
 * turns a bad configuration into its status instead of a failed activation, and stops and starts
 * with its bundle without disturbing the framework.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class FabricProviderIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.fabric");
    private static final String PID = "ipoib.verbs.fabric";

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    CommandProcessor shell;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    private VerbsProvider provider() {
        try {
            Collection<ServiceReference<VerbsProvider>> refs = context.getServiceReferences(VerbsProvider.class,
                    "(" + VerbsProvider.NAME_PROPERTY + "=fabric)");
            return refs.isEmpty() ? null : context.getService(refs.iterator().next());
        } catch (InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private String run(String command) throws Exception {
        return GogoShell.run(shell, command);
    }

    private String failure(String command) {
        return GogoShell.failure(shell, command);
    }

    @Test
    public void registersWithoutDevicesAndSaysWhy() throws Exception {
        Await.until("fabric provider", Duration.ofSeconds(10), () -> provider() != null);
        VerbsProvider p = provider();
        assertEquals("fabric", p.name());
        assertFalse(p.status().available());
        assertTrue(p.status().reason(), p.status().reason().startsWith("no RDMA devices: ")
                || p.status().reason().startsWith("libibverbs not available: "));
        assertTrue(p.devices().isEmpty());
        String devices = run("verbs:devices");
        assertTrue(devices, devices.contains("fabric provider: no devices: " + p.status().reason()));
        String port = failure("verbs:port mlx5_0 1");
        assertTrue(port, port.contains("the fabric provider has no devices"));
        String usage = failure("verbs:port");
        assertTrue(usage, usage.contains("usage: verbs:port <device> <port>"));
    }

    /** A refused configuration changes nothing that runs and is not kept: none was in force, so its values are cleared. */
    @Test
    public void aBadConfigurationIsRefusedAndNotKeptAndTheProviderRunsOn() throws Exception {
        Await.until("fabric provider", Duration.ofSeconds(10), () -> provider() != null);
        String status = provider().status().reason();
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration(PID, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("saRetries", 0);
        c.update(props);
        Await.until("the refused configuration's values are cleared", Duration.ofSeconds(10), () -> {
            Dictionary<String, Object> stored = c.getProperties();
            return stored != null && stored.get("saRetries") == null;
        });
        VerbsProvider p = provider();
        assertEquals("the provider runs on as it was", status, p.status().reason());
        assertFalse(p.status().reason(), p.status().reason().startsWith("invalid configuration"));
    }

    @Test
    public void theBundleStopsAndStartsCleanly() throws Exception {
        Bundle fabric = Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.verbs.fabric".equals(b.getSymbolicName())).findFirst().orElseThrow();
        Await.until("fabric provider", Duration.ofSeconds(10), () -> provider() != null);
        for (int i = 0; i < 3; i++) {
            fabric.stop();
            assertEquals(null, provider());
            assertTrue(failure("verbs:devices"), failure("verbs:devices").contains("devices"));
            fabric.start();
            Await.until("fabric provider back", Duration.ofSeconds(10), () -> provider() != null);
        }
        assertEquals(Bundle.ACTIVE, fabric.getState());
    }
}
