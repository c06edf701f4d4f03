package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import ipoib.api.config.ConfigurationVerdicts;
import ipoib.api.host.EchoReply;
import ipoib.api.host.IpHost;
import ipoib.api.mcast.MulticastService;
import ipoib.api.resolve.NeighbourResolver;
import ipoib.api.verbs.VerbsProvider;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Enumeration;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import javax.inject.Inject;
import org.junit.After;
import org.junit.Before;
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
import org.osgi.framework.ServiceReference;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogLevel;
import org.osgi.service.log.LogReaderService;

/**
 * A bad value written to Configuration Admin directly (as the Web Console's form and {@code cm:}
 * do: stored before any component sees it) changes nothing for ARP, ND, the multicast manager,
 * the host and the hardware provider: the component keeps running with the configuration in
 * force, stores it again, and logs one WARN line naming the property, the value (cut) and what is
 * allowed. A bad value stored before a resolver starts does not keep it from starting.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class RefusedUpdateIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast",
            "ipoib.arp", "ipoib.nd", "ipoib.host", "ipoib.verbs.fabric");
    static final String A = "10.3.0.1";
    static final String B = "10.3.0.2";

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;

    IpFixture ip;
    LogReaderService logs;
    /** The configurations the components said they took, in the order they took them. */
    final List<Map.Entry<String, Map<String, Object>>> accepted = new CopyOnWriteArrayList<>();
    ServiceRegistration<ConfigurationVerdicts> verdicts;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Before
    public void interfaces() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        verdicts = context.registerService(ConfigurationVerdicts.class, new ConfigurationVerdicts() {
            @Override
            public void accepted(String pid, Map<String, Object> properties) {
                accepted.add(Map.entry(pid, properties));
            }

            @Override
            public void refused(String pid, Map<String, Object> properties, String why, Map<String, Object> inForce) {}
        }, null);
        logs = ip.await(LogReaderService.class, null);
        ip.await(NeighbourResolver.class, "(ipoib.family=ipv4)");
        if (ip.link("a") == null) {
            ip.createLink("a", "loop0", "0xffff");
            ip.createLink("b", "loop1", "0xffff");
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        if (ip.findAddress("a", A) == null) {
            ip.address("a", A, 24);
            ip.address("b", B, 24);
        }
    }

    @After
    public void forgetVerdicts() {
        verdicts.unregister();
    }

    /** One PID: a good value stored first, then a bad one; the service whose properties show the one in force. */
    private record Case(String pid, Class<?> service, String property, Object good, Object bad, String refusal) {}

    @Test
    public void aBadValueWrittenToConfigurationAdminIsRefusedAndTheConfigurationInForceIsStoredAgain() throws Exception {
        String longValue = "y".repeat(70_000);
        List<Case> cases = List.of(
                new Case("ipoib.arp", NeighbourResolver.class, "retransmitMillis", 700, 5,
                        "invalid ipoib.arp property 'retransmitMillis' value 5 is out of range: allowed 10..60000"),
                new Case("ipoib.arp", NeighbourResolver.class, "serviceLevel", "broadcast", longValue,
                        "invalid ipoib.arp property 'serviceLevel' value '" + "y".repeat(80) + "…(70000 chars)' is not "
                                + "allowed: allowed one of broadcast, path"),
                new Case("ipoib.nd", NeighbourResolver.class, "dadTransmits", 2, 11,
                        "invalid ipoib.nd property 'dadTransmits' value 11 is out of range: allowed 0..10"),
                new Case("ipoib.mcast", MulticastService.class, "pendingFramesPerGroup", 32, 4_294_967_297L,
                        "invalid ipoib.mcast property 'pendingFramesPerGroup' value 4294967297 is out of range: "
                                + "allowed 1..4096"),
                new Case("ipoib.host", IpHost.class, "ttl", 9, 256,
                        "invalid ipoib.host property 'ttl' value 256 is out of range: allowed 1..255; ipoib.host keeps "
                                + "ttl=9 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false"));
        for (Case c : cases) {
            String family = c.pid().equals("ipoib.nd") ? "(ipoib.family=ipv6)" : c.pid().equals("ipoib.arp")
                    ? "(ipoib.family=ipv4)" : "(objectClass=" + c.service().getName() + ")";
            int beforeGood = accepted.size();
            ip.configure(c.pid(), c.property(), c.good());
            // The component's word that it took the value, not the service's properties: a good value
            // equal to the default (serviceLevel broadcast) shows there before the update arrives, and a
            // bad one stored before it did would make both one update to the component.
            awaitTaken(c, beforeGood, "takes");
            String inForce = "(&" + family + "(" + c.property() + "=" + c.good() + "))";
            Object running = ip.await(c.service(), inForce);

            int beforeBad = accepted.size();
            ip.configure(c.pid(), c.property(), c.bad());
            String line = c.pid() + ": configuration refused: " + c.refusal()
                    + "; the configuration in force stays and is stored again";
            Await.until(c.pid() + " " + c.property() + ": the WARN line", Duration.ofSeconds(10),
                    () -> warnings(line) == 1, () -> warnings(c.pid()) + "");
            Await.until(c.pid() + ": the value in force stored again", Duration.ofSeconds(10),
                    () -> String.valueOf(c.good()).equals(String.valueOf(stored(c.pid()).get(c.property()))),
                    () -> stored(c.pid()) + " (" + typeOf(stored(c.pid()).get(c.property())) + ")");
            // DS shows the refused value in the service's properties once the component has refused it, and
            // the value in force again once the write-back has come back to it: the service is judged then
            // (before it, the properties may still show the value in force from before the refusal).
            awaitTaken(c, beforeBad, "takes the write-back of");
            assertSame(c.pid() + " runs on, not restarted", running, ip.await(c.service(), inForce));
            assertEquals("one line, the value cut", 1, warnings(c.pid() + ": configuration refused: " + c.refusal()));
        }
        EchoReply reply = ip.ping("a", B, Duration.ofSeconds(5));
        assertNotNull("the host answers", reply);
        assertEquals("the TTL in force, not the refused 256", 9, reply.ttl());
        ip.configure("ipoib.host", "ttl", 64);
    }

    /** Waits until the component says it took the case's good value, in a verdict after the first {@code from}. */
    private void awaitTaken(Case c, int from, String what) {
        Await.until(c.pid() + " " + what + " " + c.property() + " " + c.good(), Duration.ofSeconds(10),
                () -> acceptedSince(from).stream().anyMatch(v -> v.getKey().equals(c.pid())
                        && String.valueOf(c.good()).equals(String.valueOf(v.getValue().get(c.property())))),
                () -> acceptedSince(from).toString());
    }

    /**
     * The verdicts after the first {@code from}, from a copy: a view of the live list would throw
     * ConcurrentModificationException when a verdict arrives while it is read.
     */
    private List<Map.Entry<String, Map<String, Object>>> acceptedSince(int from) {
        List<Map.Entry<String, Map<String, Object>>> all = List.copyOf(accepted);
        return all.subList(from, all.size());
    }

    @Test
    public void theHardwareProviderKeepsRunningAndStoresItsConfigurationAgain() throws Exception {
        Await.until("the provider", Duration.ofSeconds(10), () -> fabric() != null);
        Object defaults = fabric().getProperty("service.id");
        ip.configure("ipoib.verbs.fabric", "saRetries", 4);
        Await.until("the provider with saRetries 4 replaces the one with the defaults", Duration.ofSeconds(10),
                () -> replaces(defaults));
        ServiceReference<VerbsProvider> before = fabric();
        ip.configure("ipoib.verbs.fabric", "verbsLibrary", "/tmp/evil.so");
        Await.until("the WARN line", Duration.ofSeconds(10), () -> warnings("ipoib.verbs.fabric: configuration refused: "
                + "invalid fabric provider property 'verbsLibrary' value '/tmp/evil.so': allowed a library file name") == 1,
                () -> String.valueOf(warnings("ipoib.verbs.fabric")));
        Await.until("the configuration in force stored again", Duration.ofSeconds(10),
                () -> !"/tmp/evil.so".equals(stored("ipoib.verbs.fabric").get("verbsLibrary")),
                () -> stored("ipoib.verbs.fabric").toString());
        assertEquals(4, stored("ipoib.verbs.fabric").get("saRetries"));
        assertEquals("the provider in force was not replaced", before.getProperty("service.id"),
                fabric().getProperty("service.id"));

        // A good value replaces the provider.
        ip.configure("ipoib.verbs.fabric", "saRetries", 5);
        Object replaced = before.getProperty("service.id");
        Await.until("a new provider", Duration.ofSeconds(10), () -> replaces(replaced));
        configurationAdmin.getConfiguration("ipoib.verbs.fabric", "?").delete();
    }

    /** Before, the constructor threw: "Error during instantiation" and no resolver until the value was corrected. */
    @Test
    public void aBadValueStoredBeforeAResolverStartsDoesNotKeepItFromStarting() throws Exception {
        for (String[] c : new String[][] {{"ipoib.arp", "(ipoib.family=ipv4)", "requests", "0", "1..100"},
                {"ipoib.nd", "(ipoib.family=ipv6)", "autoconf", "2", "true or false"}}) {
            Bundle bundle = bundle(c[0]);
            bundle.stop();
            try {
                Dictionary<String, Object> bad = new Hashtable<>();
                bad.put(c[2], c[3]);
                configurationAdmin.getConfiguration(c[0], "?").update(bad);
            } finally {
                bundle.start();
            }
            Await.until(c[0] + " starts", Duration.ofSeconds(10), () -> ip.service(NeighbourResolver.class, c[1]) != null);
            Await.until(c[0] + ": one WARN line", Duration.ofSeconds(10), () -> warnings(c[0] + ": configuration refused: invalid "
                    + c[0] + " property '" + c[2] + "' value '" + c[3] + "'") == 1, () -> String.valueOf(warnings(c[0])));
            assertTrue(warnings(c[0]) + "", warnings("allowed " + c[4]) >= 1);
            Await.until(c[0] + ": nothing ran with it, its values are cleared", Duration.ofSeconds(10),
                    () -> stored(c[0]).keySet().stream().allMatch(k -> k.startsWith("service.")));
            assertEquals("no error logged", 0, errors(c[0]));
        }
        assertNotNull("IPv4 resolves", ip.ping("a", B, Duration.ofSeconds(5)));
    }

    /**
     * Whether a fabric provider other than {@code oldId} is registered now. A replacement
     * unregisters the old provider before it registers the new one, so this looks once.
     */
    private boolean replaces(Object oldId) {
        ServiceReference<VerbsProvider> now = fabric();
        return now != null && !oldId.equals(now.getProperty("service.id"));
    }

    private ServiceReference<VerbsProvider> fabric() {
        try {
            var refs = context.getServiceReferences(VerbsProvider.class, "(ipoib.provider=fabric)");
            return refs.isEmpty() ? null : refs.iterator().next();
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    private Bundle bundle(String symbolicName) {
        for (Bundle b : context.getBundles()) {
            if (symbolicName.equals(b.getSymbolicName())) {
                return b;
            }
        }
        throw new AssertionError("no bundle " + symbolicName);
    }

    private Map<String, Object> stored(String pid) {
        try {
            org.osgi.service.cm.Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + pid + ")");
            Map<String, Object> out = new java.util.HashMap<>();
            if (found != null) {
                Dictionary<String, Object> p = found[0].getProperties();
                for (Enumeration<String> k = p.keys(); k.hasMoreElements();) {
                    String key = k.nextElement();
                    out.put(key, p.get(key));
                }
            }
            return out;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private int warnings(String text) {
        return entries(LogLevel.WARN, text).size();
    }

    private int errors(String text) {
        return entries(LogLevel.ERROR, text).size();
    }

    private List<String> entries(LogLevel level, String text) {
        List<String> out = new ArrayList<>();
        Enumeration<LogEntry> all = logs.getLog();
        while (all.hasMoreElements()) {
            LogEntry e = all.nextElement();
            if (e.getLogLevel() == level && e.getMessage().contains(text)) {
                out.add(e.getMessage());
            }
        }
        return out;
    }

    private static String typeOf(Object value) {
        return value == null ? "absent" : value.getClass().getSimpleName();
    }
}
