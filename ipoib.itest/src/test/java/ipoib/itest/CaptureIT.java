package ipoib.itest;

import static ipoib.itest.Testbed.EXPERIMENTAL;
import static ipoib.itest.Testbed.payload;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import ipoib.api.Gid;
import ipoib.api.PathRecord;
import ipoib.api.Qpn;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.link.LinkPath;
import ipoib.codec.iba.Grh;
import ipoib.codec.pcap.IpoibPseudoHeader;
import ipoib.codec.pcap.LinkType;
import ipoib.codec.pcap.PcapngReader;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
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
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * {@code ipoib:capture} writes an interface's frames of both directions to pcapng as
 * LINKTYPE_IPOIB with the 40-octet pseudo-header: sent frames with the destination address,
 * received ones with their GRH (or the own address when they came without one).
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class CaptureIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link");

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

    /** Interfaces a (loop0) and b (loop1), UP. */
    private Testbed twoLinks() throws Exception {
        Testbed bed = new Testbed(context, configurationAdmin, shell);
        bed.createLink("a", "loop0");
        bed.createLink("b", "loop1");
        bed.awaitUp("a", "b");
        return bed;
    }

    /** One captured frame: its interface name, pseudo-header and IPoIB frame. */
    private record Captured(String direction, MemorySegment pseudoHeader, int etherType, String text) {}

    @Test
    public void bothDirectionsAreCapturedWithTheirPseudoHeaders() throws Exception {
        Testbed bed = twoLinks();
        bed.listen();
        IpoibLink a = bed.link("a");
        IpoibLink b = bed.link("b");
        Path file = OsgiTestSupport.captureDirectory().resolve("a.pcapng");
        Path second = OsgiTestSupport.captureDirectory().resolve("b.pcapng");
        try {
            String started = bed.run("ipoib:capture a a.pcapng 4");
            assertTrue(started, started.contains("capturing up to 4 frames of a"));
            assertTrue(bed.fail("ipoib:capture a other.pcapng 4").contains("is running; stop it first"));

            assertEquals(TransmitResult.SENT, a.sendBroadcast(EXPERIMENTAL, payload("a broadcasts")));
            bed.await("b got it", f -> f.text().equals("a broadcasts"));
            assertEquals(TransmitResult.SENT, b.sendBroadcast(EXPERIMENTAL, payload("b broadcasts")));
            bed.await("a got it", f -> f.text().equals("b broadcasts"));
            LinkPath toB = a.acquirePath(b.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(TransmitResult.SENT, a.sendUnicast(toB, b.qpn(), EXPERIMENTAL, payload("a to b")));
            toB.release();
            bed.await("b got the unicast", f -> f.text().equals("a to b"));
            LinkPath toA = b.acquirePath(a.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
            assertEquals(TransmitResult.SENT, b.sendUnicast(toA, a.qpn(), EXPERIMENTAL, payload("b to a")));
            toA.release();
            bed.await("a got the unicast", f -> f.text().equals("b to a"));

            Await.until("the capture ends after 4 frames", Duration.ofSeconds(10),
                    () -> run(bed, "ipoib:capture").contains("(ended)"), () -> run(bed, "ipoib:capture"));
            String summary = run(bed, "ipoib:capture");
            assertTrue(summary, summary.contains("4 frames written (2 received, 2 sent), 0 dropped"));

            Files.copy(file, Path.of("/tmp/ipoib-capture-check.pcapng"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            List<Captured> frames = read(file);
            assertEquals(4, frames.size());
            Gid broadcast = a.broadcastGid().gid();

            Captured out = frames.get(0);
            assertEquals("a out", out.direction());
            assertEquals("a broadcasts", out.text());
            assertEquals(EXPERIMENTAL, out.etherType());
            assertEquals(false, IpoibPseudoHeader.isGrh(out.pseudoHeader(), 0));
            assertEquals(Qpn.MAX, IpoibPseudoHeader.destinationQpn(out.pseudoHeader(), 0));
            assertEquals(broadcast, IpoibPseudoHeader.destinationGid(out.pseudoHeader(), 0));

            Captured in = frames.get(1);
            assertEquals("a in", in.direction());
            assertEquals("b broadcasts", in.text());
            assertTrue("a multicast frame comes with its GRH", IpoibPseudoHeader.isGrh(in.pseudoHeader(), 0));
            Grh grh = IpoibPseudoHeader.readGrh(in.pseudoHeader(), 0, new Grh());
            assertEquals(broadcast, grh.destinationGid());
            assertEquals(b.gid(), grh.sourceGid());

            Captured unicastOut = frames.get(2);
            assertEquals("a out", unicastOut.direction());
            assertEquals("a to b", unicastOut.text());
            assertEquals(b.qpn().value(), IpoibPseudoHeader.destinationQpn(unicastOut.pseudoHeader(), 0));
            assertEquals(b.gid(), IpoibPseudoHeader.destinationGid(unicastOut.pseudoHeader(), 0));

            Captured unicastIn = frames.get(3);
            assertEquals("a in", unicastIn.direction());
            assertEquals("b to a", unicastIn.text());
            assertEquals("no GRH: the own address stands in", a.qpn().value(),
                    IpoibPseudoHeader.destinationQpn(unicastIn.pseudoHeader(), 0));
            assertEquals(a.gid(), IpoibPseudoHeader.destinationGid(unicastIn.pseudoHeader(), 0));

            // A capture stopped by hand says what it wrote.
            assertTrue(bed.fail("ipoib:capture b a.pcapng 1000").contains("a.pcapng exists in "
                    + OsgiTestSupport.captureDirectory() + "; captures never overwrite a file"));
            bed.run("ipoib:capture b " + second + " 1000");
            b.sendBroadcast(EXPERIMENTAL, payload("one more"));
            bed.await("a got it", f -> f.text().equals("one more"));
            String stopped = bed.run("ipoib:capture b stop");
            assertTrue(stopped, stopped.contains("capture of b") && stopped.contains("1 frames written (0 received, 1 sent)"));
            assertEquals(1, read(second).size());
            assertEquals("the first capture is intact", 4, read(file).size());

            for (String[] wrong : new String[][] {
                    {"ipoib:capture nosuch x.pcapng", "no interface 'nosuch'"},
                    {"ipoib:capture a", "a file (or 'stop') is required"},
                    {"ipoib:capture a x.pcapng many", "count 'many' is not a number"},
                    {"ipoib:capture a x.pcapng 0", "count '0' is out of range: allowed 1..10000000"},
                    // A number too large for its range is out of range, not "not a number"
                    {"ipoib:capture a x.pcapng 99999999999", "count '99999999999' is out of range: allowed 1..10000000"},
                    {"ipoib:capture a /nonexistent-dir/x.pcapng", "file '/nonexistent-dir/x.pcapng' is outside the "
                            + "capture directory; allowed: a file name in the capture directory "},
                    {"ipoib:capture a x y z", "too many arguments"}}) {
                String message = bed.fail(wrong[0]);
                assertTrue(wrong[0] + ": " + message, message.contains(wrong[1]) && message.contains("\nusage: "));
            }
        } finally {
            bed.stopListening();
            Files.deleteIfExists(file);
            Files.deleteIfExists(second);
        }
    }

    /**
     * A frame is captured before it is posted, as Linux's taps see it before the driver's transmit:
     * on the loopback the peer may answer before the post returns, and the answer must still
     * come after the frame it answers in the file.
     */
    @Test
    public void anAnswerIsNeverCapturedBeforeTheFrameItAnswers() throws Exception {
        Testbed bed = twoLinks();
        IpoibLink a = bed.link("a");
        IpoibLink b = bed.link("b");
        LinkPath toA = b.acquirePath(a.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
        LinkPath toB = a.acquirePath(b.gid(), false).toCompletableFuture().get(10, TimeUnit.SECONDS);
        java.util.concurrent.LinkedBlockingQueue<String> answers = new java.util.concurrent.LinkedBlockingQueue<>();
        // b answers each request at once, on its receive thread; a collects the answers.
        java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
        props.put(ipoib.api.link.FrameHandler.ETHERTYPE_PROPERTY, EXPERIMENTAL);
        org.osgi.framework.ServiceRegistration<ipoib.api.link.FrameHandler> echo = context.registerService(
                ipoib.api.link.FrameHandler.class, (link, frame) -> {
                    String text = new String(frame.buffer().asSlice(frame.payloadOffset(), frame.payloadLength())
                            .toArray(ValueLayout.JAVA_BYTE), StandardCharsets.US_ASCII);
                    if (link == b && text.startsWith("request ")) {
                        b.sendUnicast(toA, a.qpn(), EXPERIMENTAL, payload("answer " + text.substring(8)));
                    } else if (link == a && text.startsWith("answer ")) {
                        answers.add(text);
                    }
                }, props);
        int pairs = 40;
        Path file = OsgiTestSupport.captureDirectory().resolve("order.pcapng");
        try {
            bed.run("ipoib:capture a order.pcapng " + 2 * pairs);
            for (int i = 0; i < pairs; i++) {
                assertEquals(TransmitResult.SENT, a.sendUnicast(toB, b.qpn(), EXPERIMENTAL, payload("request " + i)));
                assertEquals("answer " + i, answers.poll(10, TimeUnit.SECONDS));
            }
            Await.until("the capture ends", Duration.ofSeconds(10), () -> run(bed, "ipoib:capture").contains("(ended)"),
                    () -> run(bed, "ipoib:capture"));
            List<String> order = read(file).stream().map(f -> f.direction() + " " + f.text()).toList();
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < pairs; i++) {
                expected.add("a out request " + i);
                expected.add("a in answer " + i);
            }
            assertEquals(expected, order);
        } finally {
            echo.unregister();
            toA.release();
            toB.release();
            Files.deleteIfExists(file);
        }
    }

    /**
     * The appliance runs as root and the file name comes from a console user: a name that leaves
     * the capture directory is refused, and a symbolic link planted at the name is not followed
     * (the file it points to stays as it was), for the interface's and the fabric's captures.
     */
    @Test
    public void capturesStayInTheCaptureDirectoryAndFollowNoLink() throws Exception {
        Testbed bed = new Testbed(context, configurationAdmin, shell);
        bed.createLink("a", "loop0"); // the other test's interface when it ran first
        bed.awaitUp("a");
        Path captures = OsgiTestSupport.captureDirectory();
        String escape = "ipoib-escape-" + System.nanoTime() + ".pcapng";
        Path escaped = Path.of("/tmp", escape);
        String depth = "../".repeat(16) + "tmp/" + escape; // /tmp from any working directory
        for (String command : new String[] {"ipoib:capture a " + depth, "fabric:capture " + depth}) {
            String refused = bed.fail(command);
            assertTrue(command + ": " + refused, refused.contains("contains '..'; allowed: a file name in the capture "
                    + "directory " + captures) && refused.contains("\nusage: "));
            assertTrue(command + " wrote " + escaped, Files.notExists(escaped));
            assertTrue(Files.notExists(Path.of("tmp", escape)));
        }
        Path victim = Files.writeString(Files.createTempFile("ipoib-victim", ".txt"), "precious");
        try {
            Files.createSymbolicLink(captures.resolve("planted.pcapng"), victim);
            for (String command : new String[] {"ipoib:capture a planted.pcapng", "fabric:capture planted.pcapng"}) {
                String refused = bed.fail(command);
                assertTrue(command + ": " + refused, refused.contains("cannot write"));
                assertEquals(command + " left the link's target alone", "precious", Files.readString(victim));
            }
        } finally {
            Files.deleteIfExists(captures.resolve("planted.pcapng"));
            Files.deleteIfExists(victim);
        }
    }

    private static String run(Testbed bed, String command) {
        try {
            return bed.run(command);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static List<Captured> read(Path file) throws Exception {
        MemorySegment data = MemorySegment.ofArray(Files.readAllBytes(file));
        PcapngReader reader = new PcapngReader(data);
        List<Captured> out = new ArrayList<>();
        while (reader.next()) {
            assertEquals(LinkType.IPOIB, reader.linkType());
            MemorySegment packet = reader.data();
            MemorySegment pseudo = packet.asSlice(0, IpoibPseudoHeader.LENGTH);
            int etherType = Short.toUnsignedInt(packet.get(
                    ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN), IpoibPseudoHeader.LENGTH));
            byte[] text = packet.asSlice(IpoibPseudoHeader.LENGTH + 4).toArray(ValueLayout.JAVA_BYTE);
            String direction = reader.interfaceId() == 0 ? "a in" : "a out";
            out.add(new Captured(direction, pseudo, etherType, new String(text, StandardCharsets.US_ASCII)));
        }
        return out;
    }
}
