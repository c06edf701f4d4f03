package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.felix.framework.FrameworkFactory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.osgi.framework.Bundle;
import org.osgi.framework.BundleContext;
import org.osgi.framework.Constants;
import org.osgi.framework.ServiceRegistration;
import org.osgi.framework.launch.Framework;

/**
 * Completion from what a real framework has registered: a command bundle's services and the
 * forms they declare complete while the bundle runs, and no longer once it stopped.
 */
class RegisteredCommandsTest {
    @TempDir
    Path storage;
    private Framework framework;
    private BundleContext context;
    private CommandCompleter completer;

    @BeforeEach
    void start() throws Exception {
        framework = new FrameworkFactory().newFramework(Map.of(Constants.FRAMEWORK_STORAGE, storage.toString(),
                Constants.FRAMEWORK_STORAGE_CLEAN, Constants.FRAMEWORK_STORAGE_CLEAN_ONFIRSTINIT));
        framework.start();
        context = framework.getBundleContext();
        completer = new CommandCompleter(new RegisteredCommands(context)::now, Set::of, () -> List.of("ib0_1_ffff"));
    }

    @AfterEach
    void stop() throws Exception {
        framework.stop();
        framework.waitForStop(10_000);
    }

    private Bundle commandBundle(String name) throws Exception {
        return EmptyBundles.installAndStart(context, storage, name);
    }

    private static ServiceRegistration<?> register(Bundle bundle, String scope, Object functions, Object forms) {
        Hashtable<String, Object> properties = new Hashtable<>(Map.of("osgi.command.scope", scope,
                "osgi.command.function", functions));
        if (forms != null) {
            properties.put(CommandForms.PROPERTY, forms);
        }
        return bundle.getBundleContext().registerService(Object.class, new Object(), properties);
    }

    @Test
    void aNewCommandAndItsSubcommandsCompleteWhileItsBundleRuns() throws Exception {
        Bundle bundle = commandBundle("example.commands");
        register(bundle, "example", new String[] {"tunnels", "tunnel"},
                new String[] {"tunnels <interface> --json", "tunnel add|del <interface>"});
        assertTrue(completer.words(List.of("tun"), 0).containsAll(List.of("example:tunnels", "tunnels",
                "example:tunnel", "tunnel")), completer.words(List.of("tun"), 0).toString());
        assertEquals(List.of("ib0_1_ffff", "--json"), completer.words(List.of("example:tunnels", ""), 1));
        assertEquals(List.of("add", "del"), completer.words(List.of("tunnel", ""), 1));
        assertEquals(List.of("ib0_1_ffff"), completer.words(List.of("tunnel", "del", ""), 2));

        bundle.stop();
        assertFalse(completer.words(List.of("tun"), 0).contains("example:tunnels"), "a stopped bundle's command is gone");
        assertEquals(List.of(), completer.words(List.of("example:tunnels", ""), 1));
    }

    @Test
    void aSingleStringPropertyIsOneFunctionOrOneForm() throws Exception {
        Bundle bundle = commandBundle("single.command");
        register(bundle, "ipoib", "providers", "providers --json");
        assertEquals(List.of("--json"), completer.words(List.of("providers", ""), 1));
    }

    @Test
    void aServiceWithoutFormsCompletesByNameOnlyAndAMalformedOneToo() throws Exception {
        Bundle bundle = commandBundle("plain.commands");
        register(bundle, "plain", "hello", null);
        register(bundle, "broken", "bye", "bye on||off");
        List<String> names = completer.words(List.of(""), 0);
        assertTrue(names.containsAll(List.of("plain:hello", "broken:bye")), names.toString());
        assertEquals(List.of(), completer.words(List.of("plain:hello", ""), 1));
        assertEquals(List.of(), completer.words(List.of("broken:bye", ""), 1));
    }

    @Test
    void aMalformedDeclarationIsReportedOnceNamingTheCommandAndWhy() throws Exception {
        Bundle bundle = commandBundle("broken.commands");
        register(bundle, "broken", "bye", "bye on||off");
        java.io.PrintStream stderr = System.err;
        java.io.ByteArrayOutputStream said = new java.io.ByteArrayOutputStream();
        System.setErr(new java.io.PrintStream(said, true, java.nio.charset.StandardCharsets.UTF_8));
        try {
            completer.words(List.of(""), 0);
            completer.words(List.of("broken:bye", ""), 1);
        } finally {
            System.setErr(stderr);
        }
        String text = said.toString(java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(text.contains("bye") && text.contains(CommandForms.PROPERTY) && text.contains("empty alternative"), text);
        assertEquals(1, text.lines().filter(l -> l.contains(CommandForms.PROPERTY)).count(), text);
    }

    @Test
    void theProjectsScopesComeFirstForACommandWithoutItsScope() throws Exception {
        Bundle bundle = commandBundle("two.scopes");
        register(bundle, "other", "links", "links elsewhere");
        register(bundle, "ipoib", "links", "links <interface> --json");
        assertEquals(List.of("ib0_1_ffff", "--json"), completer.words(List.of("links", ""), 1));
        assertEquals(List.of("elsewhere"), completer.words(List.of("other:links", ""), 1));
    }
}
