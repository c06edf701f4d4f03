package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.launch.Framework;

/** The gate of the script and the console, in a real framework: it opens on gogo.shell's commands, not on a timer. */
class AfterStartupTest {

    @TempDir
    Path storage;
    private Framework framework;
    private AfterStartup gate;
    private final CountDownLatch ran = new CountDownLatch(1);
    private final List<String> unavailable = new CopyOnWriteArrayList<>();
    private final CountDownLatch told = new CountDownLatch(1);

    private BundleContext start(Map<String, String> properties) throws Exception {
        Map<String, String> config = new HashMap<>(properties);
        config.put(Constants.FRAMEWORK_STORAGE, storage.toString());
        config.put(Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT);
        framework = new FrameworkFactory().newFramework(config);
        framework.start();
        BundleContext context = framework.getBundleContext();
        gate = AfterStartup.run(context, "after-startup-test", ran::countDown, why -> {
            unavailable.add(why);
            told.countDown();
        });
        return context;
    }

    @AfterEach
    void stop() throws Exception {
        if (gate != null) {
            gate.close();
        }
        if (framework != null) {
            framework.stop();
            framework.waitForStop(10_000);
        }
    }

    /** What gogo.shell registers from its own thread once it has started. */
    private static void registerShellCommands(BundleContext context) {
        Hashtable<String, Object> properties = new Hashtable<>();
        properties.put("osgi.command.scope", "gogo");
        properties.put("osgi.command.function", new String[] {"echo", "grep", "each"});
        context.registerService(Object.class, new Object(), properties);
    }

    @Test
    void theActionRunsOnceTheShellsCommandsAreRegistered() throws Exception {
        BundleContext context = start(Map.of());
        assertEquals(1, ran.getCount(), "not before the shell's commands");
        registerShellCommands(context);
        assertTrue(ran.await(30, TimeUnit.SECONDS), "the action ran once the commands were there");
        assertEquals(List.of(), unavailable);
    }

    @Test
    void withoutTheShellsCommandsTheActionDoesNotRunAndTheReasonIsGiven() throws Exception {
        start(Map.of(AfterStartup.WAIT_PROPERTY, "1"));
        assertTrue(told.await(30, TimeUnit.SECONDS), "the reason, once the bound has passed");
        String why = unavailable.get(0);
        assertTrue(why.contains("gogo.shell has not registered its commands") && why.contains("1 s after start-up")
                && why.contains("-Dipoib.shell.wait=SECONDS"), why);
        assertEquals(1, ran.getCount(), "the action did not run without the commands");
    }

    @Test
    void theBoundIsGenerousByDefaultAndABadOneIsRefusedSayingWhatIsAllowed() {
        assertEquals(300, AfterStartup.waitSeconds(null));
        assertEquals(42, AfterStartup.waitSeconds(" 42 "));
        for (String bad : new String[] {"0", "-5", "ten", "86401"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AfterStartup.waitSeconds(bad));
            assertEquals("invalid launch property ipoib.shell.wait value '" + bad + "': allowed a number of seconds 1..86400",
                    e.getMessage());
        }
    }
}
