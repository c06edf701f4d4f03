package ipoib.itest;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.api.verbs.VerbsProvider;
import ipoib.codec.iba.UdPacket;
import ipoib.codec.pcap.ErfHeader;
import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngReader;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Dictionary;
import java.util.Enumeration;
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
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceReference;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.log.LogEntry;
import org.osgi.service.log.LogReaderService;
import org.osgi.service.component.runtime.ServiceComponentRuntime;

/**
 * The loopback provider in Felix: registers, reconfigures and unregisters cleanly, refuses a
 * bad configuration with the property, value and range while the running fabric stays, and its
 * shell commands work.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class LoopbackProviderIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link");

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;
    @Inject
    ServiceComponentRuntime scr;
    @Inject
    CommandProcessor shell;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    /** The loopback provider's registration, or null (the fabric provider may be registered too). */
    private ServiceReference<VerbsProvider> loopback() {
        try {
            var refs = context.getServiceReferences(VerbsProvider.class, "(" + VerbsProvider.NAME_PROPERTY + "=loopback)");
            return refs.isEmpty() ? null : refs.iterator().next();
        } catch (org.osgi.framework.InvalidSyntaxException e) {
            throw new AssertionError(e);
        }
    }

    /** The provider, or null while none is registered or its activation failed. */
    private VerbsProvider provider() {
        ServiceReference<VerbsProvider> ref = loopback();
        try {
            return ref == null ? null : context.getService(ref);
        } catch (org.osgi.framework.ServiceException failedActivation) {
            return null;
        }
    }

    private String run(String command) throws Exception {
        return GogoShell.run(shell, command);
    }

    private void configure(Object... keyValues) throws Exception {
        org.osgi.service.cm.Configuration c = configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?");
        Dictionary<String, Object> props = new Hashtable<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            props.put((String) keyValues[i], keyValues[i + 1]);
        }
        c.update(props);
    }

    @Test
    public void registersWithItsNameAndDefaultTopology() throws Exception {
        Await.until("provider", Duration.ofSeconds(10), () -> provider() != null);
        ServiceReference<VerbsProvider> ref = loopback();
        assertEquals("loopback", ref.getProperty(VerbsProvider.NAME_PROPERTY));
        assertTrue(provider().status().available());
        String hcas = run("fabric:hcas");
        assertTrue(hcas, hcas.contains("loop0") && hcas.contains("loop1") && hcas.contains("ACTIVE"));
    }

    @Test
    public void reconfigurationRebuildsTheFabricAndBadValuesAreRefused() throws Exception {
        try {
            configure("hcas", 3, "portsPerHca", 2);
            Await.until("3 HCAs with 2 ports", Duration.ofSeconds(10), () -> {
                VerbsProvider p = provider();
                return p != null && p.devices().size() == 3 && p.devices().get(2).ports().size() == 2;
            });

            VerbsProvider before = provider();
            LogReaderService logs = context.getService(context.getServiceReference(LogReaderService.class));
            configure("hcas", 0);
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                    "'hcas' value 0 is out of range: allowed 1..1024"));
            assertTrue("the running fabric is kept", provider() == before && before.devices().size() == 3);
            assertTrue(before.status().available());

            configure("partitions", new String[] {"Default=0x7fff, ipoib, bogus=1 : ALL ;"});
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs, "unknown flag 'bogus'"));
            configure("hcas", 2, "partitions", new String[] {"Default=0x7fff, ipoib : loop99=full ;"});
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                    "member 'loop99' of partition Default names no port"));
            configure("hcas", 3, "portsPerHca", 2, "saTimeoutMillis", 60001);
            Await.until("the refusal is logged", Duration.ofSeconds(10), () -> logged(logs,
                    "'saTimeoutMillis' value 60001 is out of range: allowed 10..60000"));
            assertTrue("still the first fabric", provider() == before && before.devices().size() == 3);
            assertFalse("no exception logged", loggedException(logs));
        } finally {
            configurationAdmin.getConfiguration("ipoib.verbs.loopback", "?").delete();
        }
        Await.until("defaults again", Duration.ofSeconds(10), () -> {
            VerbsProvider p = provider();
            return p != null && p.devices().size() == 2;
        });
    }

    @Test
    public void captureWritesFullIbaPacketsWithValidCrcs() throws Exception {
        Await.until("provider", Duration.ofSeconds(10), () -> provider() != null);
        org.osgi.service.cm.Configuration link = configurationAdmin.getFactoryConfiguration("ipoib.link", "cap", "?");
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", "cap");
        props.put("device", "loop0");
        link.update(props);
        try {
            Await.until("cap UP", Duration.ofSeconds(20), () -> {
                try {
                    var refs = context.getServiceReferences(IpoibLink.class, "(ipoib.link=cap)");
                    return !refs.isEmpty() && context.getService(refs.iterator().next()).state() == LinkState.UP;
                } catch (org.osgi.framework.InvalidSyntaxException e) {
                    throw new AssertionError(e);
                }
            });
            IpoibLink cap = context.getService(context.getServiceReferences(IpoibLink.class, "(ipoib.link=cap)")
                    .iterator().next());
            Path file = OsgiTestSupport.captureDirectory().resolve("fabric.pcapng");
            String started = run("fabric:capture " + file + " 3");
            assertTrue(started, started.contains("capturing up to 3"));
            for (int i = 0; i < 5; i++) {
                cap.sendBroadcast(0x88B5, MemorySegment.ofArray(new byte[] {1, 2, 3, (byte) i}));
            }
            String summary = run("fabric:capture stop");
            assertTrue(summary, summary.contains("3 packets written"));
            PcapngReader reader = new PcapngReader(MemorySegment.ofArray(Files.readAllBytes(file)));
            int packets = 0;
            while (reader.next()) {
                assertEquals(LinkType.ERF, reader.linkType());
                MemorySegment record = reader.data();
                // Decoding checks VCRC and ICRC: the capture holds what a receiver would accept.
                UdPacket packet = new UdPacket().decode(record, ErfHeader.LENGTH, record.byteSize() - ErfHeader.LENGTH);
                packets++;
                if (packet.bth().destinationQp() == 1) {
                    // An SA conversation of the link (fabric:capture shows MADs too): QP1, GSI Q_Key.
                    assertEquals(0x80010000, packet.deth().queueKey());
                    continue;
                }
                assertTrue("multicast carries a GRH", packet.global());
                assertEquals(0xFFFFFF, packet.bth().destinationQp());
                assertEquals(0x0b1b, packet.deth().queueKey());
                assertEquals(cap.qpn().value(), packet.deth().sourceQp());
            }
            assertEquals(3, packets);
            String usage = assertFails("fabric:capture");
            assertTrue(usage, usage.contains("usage: fabric:capture"));
        } finally {
            link.delete();
        }
    }

    private static boolean logged(LogReaderService logs, String text) {
        Enumeration<LogEntry> entries = logs.getLog();
        while (entries.hasMoreElements()) {
            if (String.valueOf(entries.nextElement().getMessage()).contains(text)) {
                return true;
            }
        }
        return false;
    }

    private static boolean loggedException(LogReaderService logs) {
        Enumeration<LogEntry> entries = logs.getLog();
        while (entries.hasMoreElements()) {
            LogEntry e = entries.nextElement();
            if (e.getException() != null && e.getBundle() != null
                    && "ipoib.verbs.loopback".equals(e.getBundle().getSymbolicName())) {
                return true;
            }
        }
        return false;
    }

    private String assertFails(String command) {
        return GogoShell.failure(shell, command);
    }

    @Test
    public void shellCommandsRefuseBadArgumentsWithUsage() {
        String e = assertFails("fabric:reset loop9/1");
        assertTrue(e, e.contains("no device 'loop9'") && e.contains("usage: fabric:reset"));
        e = assertFails("fabric:fault loss 200");
        assertTrue(e, e.contains("allowed 0..100") && e.contains("usage:"));
        e = assertFails("fabric:lid loop0/1 1");
        assertTrue(e, e.contains("belongs to the subnet manager"));
        e = assertFails("fabric:reset");
        assertTrue(e, e.contains("usage: fabric:reset"));
        e = assertFails("fabric:pkeys loop0/1 0x8000");
        assertTrue(e, e.contains("0x0000 and 0x8000 are invalid"));
        e = assertFails("fabric:sa sendOnlyFullMember maybe");
        assertTrue(e, e.contains("sendOnlyFullMember 'maybe' is not true or false")
                && e.contains("usage: fabric:sa [sendOnlyFullMember true|false]"));
        e = assertFails("fabric:sa speed 5");
        assertTrue(e, e.contains("unknown setting 'speed'"));
    }
}
