package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import ipoib.api.Gid;
import ipoib.api.PKey;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.inject.Inject;
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
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.wiring.BundleWire;
import org.osgi.framework.wiring.BundleWiring;
import org.osgi.service.cm.Configuration.ConfigurationAttribute;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.component.runtime.ServiceComponentRuntime;
import org.osgi.service.component.runtime.dto.ComponentConfigurationDTO;
import org.osgi.service.component.runtime.dto.ComponentDescriptionDTO;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.event.EventConstants;
import org.osgi.service.event.EventHandler;
import org.osgi.service.metatype.MetaTypeService;

/**
 * The foundation runs in Felix: SCR, ConfigAdmin, Metatype and EventAdmin are active, the api
 * bundle exports its packages to consumers, and SCR activates the project's components.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class FoundationIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework();

    @Inject
    BundleContext context;
    @Inject
    ServiceComponentRuntime scr;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    EventAdmin eventAdmin;
    @Inject
    MetaTypeService metaType;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Test
    public void everyBundleIsActive() {
        String notActive = Arrays.stream(context.getBundles())
                .filter(b -> b.getState() != Bundle.ACTIVE && b.getHeaders().get("Fragment-Host") == null)
                .map(b -> b.getSymbolicName() + " state " + b.getState())
                .collect(Collectors.joining(", "));
        assertEquals("bundles not active: " + notActive, "", notActive);
        Map<String, Bundle> bySymbolicName = Arrays.stream(context.getBundles())
                .collect(Collectors.toMap(Bundle::getSymbolicName, b -> b, (a, b) -> a));
        for (String required : new String[] {"ipoib.api", "ipoib.launcher", "org.apache.felix.scr",
                "org.apache.felix.configadmin", "org.apache.felix.metatype", "org.apache.felix.eventadmin"}) {
            assertNotNull(required + " is installed", bySymbolicName.get(required));
        }
    }

    @Test
    public void apiPackagesAreWiredFromTheApiBundle() {
        // This test class uses ipoib.api types, so the probe imports the package: it must come
        // from the api bundle, at the version package-info declares.
        assertEquals(0xffff, PKey.DEFAULT.value());
        Bundle probe = FrameworkUtil.getBundle(getClass());
        BundleWiring wiring = probe.adapt(BundleWiring.class);
        BundleWire wire = wiring.getRequiredWires("osgi.wiring.package").stream()
                .filter(w -> "ipoib.api".equals(w.getCapability().getAttributes().get("osgi.wiring.package")))
                .findFirst().orElseThrow(() -> new AssertionError("probe has no wire for package ipoib.api"));
        assertEquals("ipoib.api", wire.getProvider().getSymbolicName());
        assertEquals("1.1.0", wire.getCapability().getAttributes().get("version").toString());
        assertEquals(Gid.class.getClassLoader(), wire.getProvider().getBundle().adapt(BundleWiring.class).getClassLoader());
    }

    @Test
    public void scrActivatesTheProjectComponents() {
        Bundle launcher = Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.launcher".equals(b.getSymbolicName())).findFirst().orElseThrow();
        ComponentDescriptionDTO description = scr.getComponentDescriptionDTO(launcher, "ipoib.launcher.ScriptRunner");
        assertNotNull("SCR knows the launcher's ScriptRunner component", description);
        assertTrue("component enabled", scr.isComponentEnabled(description));
        ComponentConfigurationDTO configuration = scr.getComponentConfigurationDTOs(description).iterator().next();
        assertEquals("ScriptRunner is ACTIVE (its CommandProcessor reference is satisfied)",
                ComponentConfigurationDTO.ACTIVE, configuration.state);
    }

    @Test
    public void configurationAdminStoresAndReturnsConfigurations() throws Exception {
        org.osgi.service.cm.Configuration configuration =
                configurationAdmin.getFactoryConfiguration("ipoib.itest.factory", "probe", "?");
        Dictionary<String, Object> properties = new Hashtable<>();
        properties.put("pkey", "0x8001");
        configuration.update(properties);
        org.osgi.service.cm.Configuration[] found =
                configurationAdmin.listConfigurations("(service.factoryPid=ipoib.itest.factory)");
        assertNotNull(found);
        assertEquals(1, found.length);
        assertEquals("0x8001", found[0].getProperties().get("pkey"));
        assertTrue(found[0].getAttributes().isEmpty() || !found[0].getAttributes().contains(ConfigurationAttribute.READ_ONLY));
        found[0].delete();
        assertNotNull("metatype service is available", metaType);
    }

    @Test
    public void eventAdminDeliversEvents() throws Exception {
        java.util.concurrent.CompletableFuture<Event> received = new java.util.concurrent.CompletableFuture<>();
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(EventConstants.EVENT_TOPIC, "ipoib/itest/*");
        var registration = context.registerService(EventHandler.class, received::complete, props);
        try {
            eventAdmin.postEvent(new Event("ipoib/itest/PING", Map.of("link", "ib0")));
            Event event = received.get(10, TimeUnit.SECONDS);
            assertEquals("ib0", event.getProperty("link"));
        } finally {
            registration.unregister();
        }
    }
}
