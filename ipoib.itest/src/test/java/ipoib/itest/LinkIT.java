package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;
import static org.junit.Assert.assertSame;
import static org.junit.Assert.assertTrue;

import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.link.ReceivedFrame;
import ipoib.api.link.TransmitResult;
import ipoib.api.link.LinkPath;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.time.Duration;
import java.util.Arrays;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.Map;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import javax.inject.Inject;
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

/**
 * IPoIB interfaces on the loopback fabric: they come UP by joining the broadcast group with the
 * group's MTU and Q_Key, carry frames between HCAs, and heal when the provider is swapped.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class LinkIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link");
    /** An EtherType for local experiments (IEEE 802 local experimental 1). */
    static final int EXPERIMENTAL = 0x88B5;

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    org.osgi.service.component.runtime.ServiceComponentRuntime scr;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    static final class Received {
        final String link;
        final byte[] payload;
        final int sourceQpn;
        final boolean multicast;
        final boolean readOnly;

        Received(IpoibLink link, ReceivedFrame frame) {
            this.readOnly = frame.buffer().isReadOnly();
            this.link = link.name();
            this.payload = frame.buffer().asSlice(frame.payloadOffset(), frame.payloadLength())
                    .toArray(ValueLayout.JAVA_BYTE);
            this.sourceQpn = frame.sourceQpn();
            this.multicast = frame.multicast();
        }
    }

    private final LinkedBlockingQueue<Received> received = new LinkedBlockingQueue<>();

    @Before
    public void interfaces() throws Exception {
        if (link("a") == null) {
            createLink("a", "loop0");
            createLink("b", "loop1");
        }
        awaitUp("a");
        awaitUp("b");
    }

    private void createLink(String name, String device) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", name, "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", name);
        props.put("device", device);
        props.put("port", 1);
        props.put("pkey", "0xffff");
        c.update(props);
    }

    IpoibLink link(String name) {
        try {
            var refs = context.getServiceReferences(IpoibLink.class, "(ipoib.link=" + name + ")");
            return refs.isEmpty() ? null : context.getService(refs.iterator().next());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    void awaitUp(String name) {
        Await.until(name + " UP", Duration.ofSeconds(20),
                () -> link(name), l -> l.state() == LinkState.UP);
    }

    private ServiceRegistration<FrameHandler> handler() {
        Dictionary<String, Object> props = new Hashtable<>();
        props.put(FrameHandler.ETHERTYPE_PROPERTY, EXPERIMENTAL);
        return context.registerService(FrameHandler.class, (l, f) -> received.add(new Received(l, f)), props);
    }

    private static MemorySegment payload(String text) {
        return MemorySegment.ofArray(text.getBytes(java.nio.charset.StandardCharsets.US_ASCII));
    }

    @Test
    public void interfacesComeUpWithTheBroadcastGroupsMtuAndQKey() {
        for (String name : new String[] {"a", "b"}) {
            IpoibLink l = link(name);
            assertEquals(2044, l.mtu());
            assertEquals(QKey.of(0x0b1b), l.qkey());
            assertEquals("ff12:401b:ffff::ffff:ffff", l.broadcastGid().toString());
            assertNotNull(l.address());
            assertEquals(l.qpn(), l.address().qpn());
        }
        assertTrue(!link("a").gid().equals(link("b").gid()));
    }

    @Test
    public void broadcastCarriesFramesToTheOtherInterfaceOnly() throws Exception {
        ServiceRegistration<FrameHandler> reg = handler();
        try {
            long ownBefore = link("a").dropCounters().get("rx_dropped_own_multicast");
            assertEquals(TransmitResult.SENT, link("a").sendBroadcast(EXPERIMENTAL, payload("hello broadcast")));
            Received r = received.poll(10, TimeUnit.SECONDS);
            assertNotNull("b received the broadcast", r);
            assertEquals("b", r.link);
            assertEquals("hello broadcast", new String(r.payload, java.nio.charset.StandardCharsets.US_ASCII));
            assertTrue(r.multicast);
            assertEquals(link("a").qpn().value(), r.sourceQpn);
            // The fabric replicates the broadcast to a as well (the switch forwards to every member
            // port, the sender's own included); a drops that copy before any handler sees it.
            Await.until("a dropped its own broadcast", Duration.ofSeconds(20),
                    () -> link("a").dropCounters().get("rx_dropped_own_multicast") > ownBefore,
                    () -> "rx_dropped_own_multicast was " + ownBefore + ", is "
                            + link("a").dropCounters().get("rx_dropped_own_multicast") + "; a: " + link("a").counters());
            assertNull("a does not hand its own broadcast to a handler", received.poll());
            assertTrue("the handler saw the frame read-only", r.readOnly);
        } finally {
            reg.unregister();
        }
    }

    @Test
    public void unicastThroughAPathRecord() throws Exception {
        ServiceRegistration<FrameHandler> reg = handler();
        try {
            IpoibLink a = link("a");
            IpoibLink b = link("b");
            LinkPath path = a.acquirePath(b.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
            LinkPath again = a.acquirePath(b.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
            try {
                assertEquals(b.gid(), path.destination());
                assertEquals(b.port().attributes().lid(), path.record().destinationLid());
                assertEquals("one cached path for both users", java.util.Set.of(b.gid()), a.paths().keySet());
                assertEquals(TransmitResult.SENT, a.sendUnicast(path, b.qpn(), EXPERIMENTAL, payload("unicast")));
                Received r = received.poll(10, TimeUnit.SECONDS);
                assertNotNull(r);
                assertEquals("b", r.link);
                assertEquals(false, r.multicast);
            } finally {
                path.release();
            }
            assertFalse("a released reference is not valid", path.valid());
            assertEquals(TransmitResult.DROPPED_NO_ROUTE, a.sendUnicast(path, b.qpn(), EXPERIMENTAL, payload("x")));
            assertTrue("the other reference keeps the path", again.valid());
            assertEquals(TransmitResult.SENT, a.sendUnicast(again, b.qpn(), EXPERIMENTAL, payload("again")));
            assertEquals("again", new String(received.poll(10, TimeUnit.SECONDS).payload,
                    java.nio.charset.StandardCharsets.US_ASCII));
            again.release();
            assertTrue("the last release removes the path", a.paths().isEmpty());
        } finally {
            reg.unregister();
        }
    }

    @Test
    public void framesOfUnknownEtherTypesAreCountedAndDropped() throws Exception {
        long before = link("b").counters().rxDroppedNoHandler();
        link("a").sendBroadcast(0x1234, payload("nobody handles this"));
        Await.until("the drop is counted", Duration.ofSeconds(10),
                () -> link("b").counters().rxDroppedNoHandler() == before + 1);
    }

    @Test
    public void oversizeFramesAreRefused() {
        MemorySegment big = MemorySegment.ofArray(new byte[2045]);
        assertEquals(TransmitResult.DROPPED_TOO_BIG, link("a").sendBroadcast(EXPERIMENTAL, big));
        assertEquals(Long.valueOf(1), link("a").dropCounters().get("tx_dropped_too_big"));
    }

    @Test
    public void stoppingTheProviderTakesLinksDownAndStartingItBringsThemUp() throws Exception {
        Bundle loopback = Arrays.stream(context.getBundles())
                .filter(b -> "ipoib.verbs.loopback".equals(b.getSymbolicName())).findFirst().orElseThrow();
        ServiceRegistration<FrameHandler> reg = handler();
        try {
            for (int round = 0; round < 5; round++) {
                loopback.stop();
                assertEquals(LinkState.DOWN, link("a").state());
                assertTrue(link("a").stateReason(), link("a").stateReason().contains("no verbs provider")
                        || link("a").stateReason().contains("went away"));
                loopback.start();
                awaitUp("a");
                awaitUp("b");
            }
            assertEquals(TransmitResult.SENT, link("a").sendBroadcast(EXPERIMENTAL, payload("after swap")));
            Received r = received.poll(10, TimeUnit.SECONDS);
            assertNotNull("traffic flows after the swaps", r);
            assertEquals("after swap", new String(r.payload, java.nio.charset.StandardCharsets.US_ASCII));
        } finally {
            reg.unregister();
        }
    }

    /** What a Gogo command printed (or the error it threw), as a user sees it. */
    private String shell(String command) {
        var ref = context.getServiceReference(org.apache.felix.service.command.CommandProcessor.class);
        assertNotNull("the Gogo runtime is there", ref);
        return GogoShell.execute(context.getService(ref), command).all();
    }

    /** Stores a configuration the component may delete at once: its PID, read before the update. */
    private String configuredPid(String pidName, Object... keyValues) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", pidName, "?");
        String pid = c.getPid();
        c.update(properties(keyValues));
        return pid;
    }

    private org.osgi.service.cm.Configuration configure(String pidName, Object... keyValues) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", pidName, "?");
        c.update(properties(keyValues));
        return c;
    }

    private static Dictionary<String, Object> properties(Object... keyValues) {
        Dictionary<String, Object> props = new Hashtable<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        return props;
    }

    /**
     * A configuration refused before any of its values ran is not left stored (one WARN line names
     * the property, the value and what is allowed): nothing of it runs, and ipoib:links has no entry.
     */
    @Test
    public void badConfigurationIsRefusedAndNotLeftStored() throws Exception {
        String bad = configuredPid("bad", "name", "bad", "device", "loop0", "pkey", "0x8000");
        awaitDeleted(bad);
        assertNull("no interface for an invalid configuration", link("bad"));
        // Its refusal is shown until its component leaves, which the deletion reaches through
        // Configuration Admin's and DS's own threads, after listConfigurations already has it gone.
        Await.until("ipoib:links without bad", Duration.ofSeconds(10), () -> !shell("ipoib:links").contains("bad"),
                () -> shell("ipoib:links"));

        // Values the annotation types would truncate or misread are refused, not converted.
        String big = configuredPid("big", "name", "big", "device", "loop0", "pkey", "0x8005",
                "sendQueueDepth", 4294967297L, "receiveQueueDepth", "abc");
        awaitDeleted(big);
        assertNull(link("big"));
    }

    private void awaitDeleted(String pid) {
        Await.until(pid + " deleted", Duration.ofSeconds(10), () -> {
            try {
                return configurationAdmin.listConfigurations("(service.pid=" + pid + ")") == null;
            } catch (java.io.IOException | org.osgi.framework.InvalidSyntaxException e) {
                throw new IllegalStateException(e);
            }
        }, () -> shell("ipoib:links"));
    }

    /** Two interfaces on one (HCA, port, partition) would share a GID. */
    @Test
    public void aSecondInterfaceOnTheSamePortAndPartitionIsRefused() throws Exception {
        String created = shell("ipoib:create loop0 1 0x7fff dup");
        assertTrue(created, created.contains("interface a already runs on loop0 port 1 P_Key 0x7fff"));
        assertNull(link("dup"));

        int qpn = link("a").qpn().value();
        org.osgi.service.cm.Configuration c = configure("dup", "name", "dup", "device", "loop0", "port", 1,
                "pkey", "0xffff");
        try {
            Await.until("ipoib:links shows why dup does not run", Duration.ofSeconds(10),
                    () -> shell("ipoib:links").contains("dup: REFUSED (interface a already runs on loop0 port 1"),
                    () -> shell("ipoib:links"));
            assertNull("no second interface on the partition", link("dup"));
            assertEquals(LinkState.UP, link("a").state());
            assertEquals("a is not disturbed", qpn, link("a").qpn().value());
        } finally {
            c.delete();
        }
    }

    /** A configuration with a name in use is refused; the original never notices. */
    @Test
    public void aDuplicateNameFromConfigAdminIsRefusedAndTheOriginalIsNotDisturbed() throws Exception {
        IpoibLink a = link("a");
        int qpn = a.qpn().value();
        org.osgi.service.cm.Configuration c = configure("a-again", "name", "a", "device", "loop1", "port", 1,
                "pkey", "0x8001");
        try {
            Await.until("ipoib:links shows the refusal", Duration.ofSeconds(10),
                    () -> shell("ipoib:links").contains("a: REFUSED (an interface named 'a' exists)"),
                    () -> shell("ipoib:links"));
            assertEquals("one service named a", 1,
                    context.getServiceReferences(IpoibLink.class, "(ipoib.link=a)").size());
            assertSame(a, link("a"));
        } finally {
            c.delete();
        }
        Await.until("the refusal is gone", Duration.ofSeconds(10),
                () -> !shell("ipoib:links").contains("REFUSED"), () -> shell("ipoib:links"));
        assertSame("the original is the same service", a, link("a"));
        assertEquals(LinkState.UP, a.state());
        assertEquals(qpn, a.qpn().value());
        ServiceRegistration<FrameHandler> reg = handler();
        try {
            assertEquals(TransmitResult.SENT, link("b").sendBroadcast(EXPERIMENTAL, payload("still there")));
            Received r = received.poll(10, TimeUnit.SECONDS);
            assertNotNull("a still receives", r);
            assertEquals("a", r.link);
        } finally {
            reg.unregister();
        }
    }

    /** A bad update keeps the configuration in force, and says so. */
    @Test
    public void aBadUpdateKeepsTheRunningInterfaceAndIsShown() throws Exception {
        IpoibLink a = link("a");
        int qpn = a.qpn().value();
        org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", "a", "?");
        Dictionary<String, Object> good = c.getProperties();
        Dictionary<String, Object> bad = new Hashtable<>();
        for (var keys = good.keys(); keys.hasMoreElements(); ) {
            String k = keys.nextElement();
            bad.put(k, good.get(k));
        }
        bad.put("sendQueueDepth", 0);
        c.update(bad);
        try {
            Await.until("ipoib:links shows the refused update", Duration.ofSeconds(10),
                    () -> shell("ipoib:links").contains("configuration update refused: invalid ipoib.link property "
                            + "'sendQueueDepth' value 0 is out of range: allowed 1..8192; the previous configuration "
                            + "stays in force"),
                    () -> shell("ipoib:links"));
            assertSame("the interface keeps running", a, link("a"));
            assertEquals(LinkState.UP, a.state());
            assertEquals(qpn, a.qpn().value());
        } finally {
            c.update(good);
        }
        String awaited = shell("ipoib:await a 10");
        assertTrue(awaited, awaited.contains("a") && !awaited.contains("rror"));
        assertSame("an unchanged configuration does not restart the interface", a, link("a"));
        assertEquals(qpn, a.qpn().value());
    }
}
