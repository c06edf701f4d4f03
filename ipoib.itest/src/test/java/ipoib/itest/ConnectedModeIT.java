package ipoib.itest;

import static org.junit.Assert.assertArrayEquals;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.fail;

import ipoib.api.host.UdpDatagram;
import ipoib.api.host.UdpService;
import ipoib.api.host.UdpSocket;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.api.resolve.NeighbourResolver;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * Connected mode (RFC 4755, Linux's IPoIB-CM) through the whole stack on the loopback fabric: two
 * interfaces configured with {@code mode=connected} resolve each other with ARP and ND (learning
 * the RC flag from the link-layer addresses), set up reliable connections with CM MADs on QP1, and
 * exchange 60 000-octet UDP datagrams over IPv4 and IPv6 through the host layer; the shell shows
 * the mode, the connections and the neighbours' connection state; {@code ipoib:mode} switches a
 * running interface; {@code fabric:capture} of a connection's set-up and tear-down is decoded by
 * tshark without malformed packets or warnings, with the service ID, QPNs, PSNs and private data
 * as the interfaces used them.
 */
@RunWith(PaxExam.class)
@ExamReactorStrategy(PerSuite.class)
public class ConnectedModeIT {
    @ClassRule
    public static final SharedFramework SHARED = new SharedFramework("ipoib.codec", "ipoib.verbs.loopback", "ipoib.link", "ipoib.mcast",
            "ipoib.arp", "ipoib.nd", "ipoib.host");
    static final String A = "10.7.0.1";
    static final String B = "10.7.0.2";
    static final int PORT = 7100;
    static final String TSHARK = "/usr/bin/tshark";

    @Inject
    BundleContext context;
    @Inject
    ConfigurationAdmin configurationAdmin;

    IpFixture ip;

    @Configuration
    public Option[] config() {
        return OsgiTestSupport.sharedRuntime();
    }

    @Before
    public void interfaces() throws Exception {
        ip = new IpFixture(context, configurationAdmin);
        ip.await(ipoib.api.mcast.MulticastService.class, null);
        if (ip.link("a") == null) {
            ip.configure("ipoib.nd", "retransmitMillis", 200, "dadTransmits", 1);
            ip.await(NeighbourResolver.class, "(&(ipoib.family=ipv6)(retransmitMillis=200))");
            for (String[] l : new String[][] {{"a", "loop0"}, {"b", "loop1"}}) {
                org.osgi.service.cm.Configuration c = configurationAdmin.getFactoryConfiguration("ipoib.link", l[0], "?");
                java.util.Hashtable<String, Object> props = new java.util.Hashtable<>();
                props.put("name", l[0]);
                props.put("device", l[1]);
                props.put("port", 1);
                props.put("pkey", "0xffff");
                props.put("mode", "connected");
                c.update(props);
            }
        }
        ip.awaitUp("a");
        ip.awaitUp("b");
        ip.run("ipoib:mode a connected");
        ip.run("ipoib:mode b connected");
        Await.until("both in connected mode", Duration.ofSeconds(10),
                () -> ip.link("a").mtu() == 65520 && ip.link("b").mtu() == 65520);
        if (ip.findAddress("a", A) == null) {
            ip.address("a", A, 24);
            ip.address("b", B, 24);
        }
    }

    String linkLocal(String link) {
        long guid = ip.link(link).gid().interfaceId();
        long id = (guid & 0x0200_0000_0000_0000L) != 0 ? guid : guid ^ 0x0200_0000_0000_0000L;
        return ipoib.api.resolve.AddressBits.ipv6(0xfe80_0000_0000_0000L, id).getHostAddress();
    }

    /** b's ARP entry for {@code address} (it must have one). */
    ipoib.api.resolve.NeighbourEntry neighbourOfB(String address) {
        return ip.arp().neighbours("b").stream().filter(n -> n.address().getHostAddress().equals(address))
                .findFirst().orElseThrow(() -> new AssertionError("b has no ARP entry for " + address + ":\n"
                        + ip.run("ipoib:neigh b")));
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 13 + seed + (i >>> 9));
        }
        return b;
    }

    /** Sends until the datagram arrives (the first ones wait for ARP/ND, the path and the connection). */
    static byte[] exchange(UdpSocket client, String link, InetAddress to, byte[] payload,
                           LinkedBlockingQueue<byte[]> received) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            TransmitResult r = client.send(link, to, PORT, MemorySegment.ofArray(payload));
            assertTrue(r.toString(), r == TransmitResult.SENT || r == TransmitResult.QUEUED
                    || r == TransmitResult.DROPPED_NO_BUFFER);
            byte[] got = received.poll(500, TimeUnit.MILLISECONDS);
            if (got != null) {
                return got;
            }
        }
        throw new AssertionError("no datagram to " + to + " within 30 s");
    }

    @Test
    public void sixtyThousandOctetUdpDatagramsTravelOverReliableConnectionsForIpv4AndIpv6() throws Exception {
        IpoibLink a = ip.link("a");
        IpoibLink b = ip.link("b");
        assertEquals(0x80, a.address().flags());
        String links = ip.run("ipoib:links a");
        assertTrue(links, links.contains("mode connected") && links.contains("mtu 65520")
                && links.contains("lladdr 80:"));
        UdpService udp = ip.await(UdpService.class, null);
        LinkedBlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        try (UdpSocket server = udp.open(PORT, (UdpDatagram d) -> received.add(d.payload().toArray(ValueLayout.JAVA_BYTE)));
             UdpSocket client = udp.open(0, d -> { })) {
            byte[] v4 = pattern(60_000, 4);
            assertArrayEquals(v4, exchange(client, "a", InetAddress.getByName(B), v4, received));
            received.clear();
            byte[] v6 = pattern(60_000, 6);
            assertArrayEquals(v6, exchange(client, "a", InetAddress.getByName(linkLocal("b")), v6, received));
            for (int i = 0; i < 20; i++) {
                byte[] more = pattern(60_000, 100 + i);
                received.clear();
                assertArrayEquals("datagram " + i, more, exchange(client, "a", InetAddress.getByName(B), more, received));
            }
        }
        String cm = ip.run("ipoib:cm a");
        assertTrue(cm, cm.contains("listening on service ID 0x" + String.format("%016x", 0x1000000000000000L
                | a.qpn().value())));
        assertTrue(cm, cm.contains(String.format("tx UP         peer qpn 0x%06x", b.qpn().value())));
        assertTrue(cm, cm.contains("mtu 65520"));
        String neigh = ip.run("ipoib:neigh a");
        String line = neigh.lines().filter(l -> l.startsWith(B + " ")).findFirst().orElse("");
        assertTrue(neigh, line.contains(b.address().toString()) && line.matches(".* up( .*)?$"));
        assertEquals(0x80, ip.arp().neighbours("a").stream().filter(e -> e.address().getHostAddress().equals(B))
                .findFirst().orElseThrow().linkAddress().flags());
    }

    @Test
    public void theModeSwitchesAtRuntimeAndBadValuesAreRefusedWithUsage() throws Exception {
        IpoibLink a = ip.link("a");
        var qpn = a.qpn();
        assertTrue(ip.run("ipoib:mode a").startsWith("a: connected, mtu 65520"));
        UdpService udp = ip.await(UdpService.class, null);
        LinkedBlockingQueue<byte[]> atA = new LinkedBlockingQueue<>();
        LinkedBlockingQueue<byte[]> atB = new LinkedBlockingQueue<>();
        try (UdpSocket onA = udp.open(PORT, (UdpDatagram d) -> (d.link().equals("a") ? atA : atB)
                .add(d.payload().toArray(ValueLayout.JAVA_BYTE)));
             UdpSocket client = udp.open(0, d -> { })) {
            // b resolves a while both run connected mode: its entry carries a's RC flag.
            byte[] first = pattern(100, 20);
            assertArrayEquals(first, exchange(client, "b", InetAddress.getByName(A), first, atA));
            assertEquals(0x80, neighbourOfB(A).linkAddress().flags());

            ip.run("ipoib:mode a datagram");
            Await.until("a in datagram mode", Duration.ofSeconds(10), () -> ip.link("a").mtu() == 2044);
            assertEquals("the interface kept running: same QPN", qpn, ip.link("a").qpn());
            assertEquals(0, ip.link("a").address().flags());
            assertEquals("datagram", configurationAdmin.listConfigurations("(name=a)")[0].getProperties().get("mode"));
            String e = GogoShell.failure(ip.await(org.apache.felix.service.command.CommandProcessor.class, null),
                    "ipoib:mode a fast");
            assertTrue(e, e.contains("invalid mode 'fast': allowed datagram or connected") && e.contains("usage: ipoib:mode"));
            e = GogoShell.failure(ip.await(org.apache.felix.service.command.CommandProcessor.class, null), "ipoib:mode x connected");
            assertTrue(e, e.contains("no configured interface 'x'"));

            // a in datagram mode, b in connected mode: they talk over UD. a announced its address
            // without the flag (gratuitous ARP), so b stops using its connection to a.
            Await.until("b learns a's address without the RC flag", Duration.ofSeconds(10),
                    () -> neighbourOfB(A).linkAddress().flags() == 0,
                    () -> ip.run("ipoib:neigh") + ip.arp().counters());
            byte[] fromB = pattern(2016, 21); // the UD MTU less the IPv4 and UDP headers
            assertArrayEquals(fromB, exchange(client, "b", InetAddress.getByName(A), fromB, atA));
            byte[] fromA = pattern(2016, 22);
            assertArrayEquals(fromA, exchange(client, "a", InetAddress.getByName(B), fromA, atB));
            String neigh = ip.run("ipoib:neigh b");
            String line = neigh.lines().filter(l -> l.startsWith(A + " ")).findFirst().orElse("");
            assertTrue(neigh, line.contains(ip.link("a").address().toString()) && !line.matches(".* up( .*)?$"));
        }
        ip.run("ipoib:mode a connected");
        Await.until("a connected again", Duration.ofSeconds(10), () -> ip.link("a").mtu() == 65520);
        assertEquals(qpn, ip.link("a").qpn());
    }

    @Test
    public void tsharkDecodesACapturedSetUpAndTearDown() throws Exception {
        if (!Files.isExecutable(Path.of(TSHARK))) {
            fail("tshark is required for this test and was not found at " + TSHARK
                    + ": install Wireshark's command-line tool (Debian package 'tshark'); ./ipoib test does");
        }
        IpoibLink a = ip.link("a");
        IpoibLink b = ip.link("b");
        UdpService udp = ip.await(UdpService.class, null);
        LinkedBlockingQueue<byte[]> received = new LinkedBlockingQueue<>();
        Path file = OsgiTestSupport.captureDirectory().resolve("cm.pcapng");
        try (UdpSocket server = udp.open(PORT, (UdpDatagram d) -> received.add(d.payload().toArray(ValueLayout.JAVA_BYTE)));
             UdpSocket client = udp.open(0, d -> { })) {
            exchange(client, "a", InetAddress.getByName(B), pattern(100, 1), received); // resolved, connected
            ip.run("ipoib:mode a datagram"); // tears a's connections down: a fresh set-up follows
            Await.until("a's connections gone", Duration.ofSeconds(10), () -> !ip.run("ipoib:cm b").contains("rx UP"));
            ip.run("fabric:capture " + file + " 1000");
            ip.run("ipoib:mode a connected");
            Await.until("a connected", Duration.ofSeconds(10), () -> ip.link("a").mtu() == 65520);
            received.clear();
            exchange(client, "a", InetAddress.getByName(B), pattern(50_000, 2), received);
            String cm = ip.run("ipoib:cm a");
            Matcher m = Pattern.compile("tx UP .*rc qpn 0x(\\p{XDigit}+) -> 0x(\\p{XDigit}+)  psn 0x(\\p{XDigit}+)/0x(\\p{XDigit}+)")
                    .matcher(cm);
            assertTrue(cm, m.find());
            int txQpn = Integer.parseInt(m.group(1), 16);
            int rxQpn = Integer.parseInt(m.group(2), 16);
            int txPsn = Integer.parseInt(m.group(3), 16);
            int rxPsn = Integer.parseInt(m.group(4), 16);
            ip.run("ipoib:mode a datagram"); // DREQ from a, DREP from b
            Await.until("b's side closed", Duration.ofSeconds(10), () -> !ip.run("ipoib:cm b").contains("rx UP"));
            ip.run("fabric:capture stop");

            // One tshark reads the CM MADs and the RC packets to b's queue pair of this connection (a
            // second process would cost a second start of a second or so). The expert summary covers
            // the CM MADs only: Wireshark does not reassemble RC messages, so the SEND First of a
            // 50 000-octet datagram shows as a truncated IPv4 packet (as on a wire capture of Linux's
            // IPoIB-CM).
            List<String> command = new ArrayList<>(List.of(TSHARK, "-r", file.toString(), "-Y",
                    "infiniband.mad.mgmtclass == 0x07 || infiniband.bth.destqp == " + rxQpn, "-T", "fields", "-E",
                    "separator=\t", "-E", "occurrence=f",
                    "-z", "expert,warn,infiniband.mad.mgmtclass == 0x07"));
            for (String f : List.of("infiniband.mad.attributeid", "infiniband.cm.req.serviceid",
                    "infiniband.cm.req.localqpn", "infiniband.cm.req.startpsn", "infiniband.cm.req.private",
                    "infiniband.cm.rep.localqpn", "infiniband.cm.rep.startpsn", "infiniband.cm.rep.private",
                    "infiniband.lrh.slid", "_ws.malformed", "_ws.expert.severity", "infiniband.bth.destqp",
                    "infiniband.bth.opcode")) {
                command.add("-e");
                command.add(f);
            }
            Path dir = Files.createTempDirectory("tshark");
            ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
            pb.environment().put("WIRESHARK_CONFIG_DIR", dir.toString());
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue("tshark finished", p.waitFor(120, TimeUnit.SECONDS));
            assertEquals(out, 0, p.exitValue());
            List<String> kinds = new ArrayList<>();
            List<String> opcodes = new ArrayList<>();
            int aLid = a.port().attributes().lid().value();
            for (String line : out.split("\n")) {
                String[] v = line.split("\t", -1);
                if (v.length < 13) {
                    continue; // the expert summary
                }
                if (v[0].isEmpty()) {
                    // Not a MAD: an RC packet to b's queue pair (the filter's other half).
                    assertEquals(line, rxQpn, (int) Long.decode(v[11]).longValue());
                    opcodes.add(v[12].strip());
                    continue;
                }
                assertTrue(line, v[9].isEmpty());
                assertTrue("no expert warning: " + line, v[10].isEmpty() || Long.decode(v[10]) < 0x00600000L);
                int attribute = Integer.decode(v[0]);
                boolean fromA = Integer.decode(v[8]) == aLid;
                kinds.add((switch (attribute) {
                    case 0x10 -> "REQ";
                    case 0x12 -> "REJ";
                    case 0x13 -> "REP";
                    case 0x14 -> "RTU";
                    case 0x15 -> "DREQ";
                    case 0x16 -> "DREP";
                    default -> "0x" + Integer.toHexString(attribute);
                }) + (fromA ? " a>b" : " b>a"));
                if (attribute == 0x10 && fromA) {
                    assertEquals(0x1000000000000000L | b.qpn().value(), Long.parseUnsignedLong(v[1].substring(2), 16));
                    assertEquals(txQpn, (int) Long.decode(v[2]).longValue());
                    assertEquals(txPsn, (int) Long.decode(v[3]).longValue());
                    assertTrue(v[4], v[4].replace(":", "").startsWith(String.format("%08x%08x", a.qpn().value(), 65524)));
                }
                if (attribute == 0x13 && !fromA) {
                    assertEquals(rxQpn, (int) Long.decode(v[5]).longValue());
                    assertEquals(rxPsn, (int) Long.decode(v[6]).longValue());
                    assertTrue(v[7], v[7].replace(":", "").startsWith(String.format("%08x%08x", b.qpn().value(), 65524)));
                }
            }
            assertTrue(out, !out.contains("Errors (") && !out.contains("Warnings ("));
            // a's connection in order (b may set up its own towards a in between: ND answers go over RC too)
            int at = -1;
            for (String step : List.of("REQ a>b", "REP b>a", "RTU a>b", "DREQ a>b", "DREP b>a")) {
                int next = kinds.subList(at + 1, kinds.size()).indexOf(step);
                assertTrue(step + " after position " + at + " in " + kinds, next >= 0);
                at += 1 + next;
            }
            assertTrue(kinds.toString(), !kinds.contains("REJ a>b") && !kinds.contains("REJ b>a"));
            // The datagrams themselves: RC SENDs to b's RC queue pair of this connection, ACKed.
            assertTrue("RC SEND First, Middle and Last to b: " + opcodes,
                    opcodes.containsAll(List.of("0", "1", "2")) || opcodes.containsAll(List.of("0x00", "0x01", "0x02")));
        } finally {
            ip.run("ipoib:mode a connected");
            Files.deleteIfExists(file);
        }
    }
}
