package ipoib.itest;

import static ipoib.itest.NetdevHosts.TIMEOUT;
import static ipoib.itest.NetdevHosts.appliance;
import static ipoib.itest.NetdevHosts.await;
import static ipoib.itest.NetdevHosts.counter;
import static ipoib.itest.NetdevHosts.data;
import static ipoib.itest.NetdevHosts.linkLocal;
import static ipoib.itest.NetdevHosts.pingBothWays;
import static ipoib.itest.NetdevHosts.read;
import static ipoib.itest.NetdevHosts.sha256;
import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import ipoib.itest.netdev.EchoClient;
import ipoib.itest.netdev.EchoServer;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;

/**
 * Real traffic between h1 and h2 of {@link NetdevHosts} (as {@code ./ipoib --hosts} makes them):
 * the Linux tools themselves (ping, nc, iperf3, socat, curl, python3, a plain java.net program)
 * as the clients.
 */
public class NetdevTraffic {
    @ClassRule
    public static final NetdevHosts HOSTS = NetdevHosts.shared();

    @Test
    public void pingIpv4BothDirections() throws Exception {
        pingBothWays("h1", new String[] {"10.0.0.2"}, "h2", new String[] {"10.0.0.1"});
        // The kernel, not the Java host layer, answered: the host layer counts the frames it left to it.
        assertTrue(appliance().command("ipoib:netdev", TIMEOUT),
                counter("ib0_1_ffff", "rx_packets") > 0 && counter("ib1_1_ffff", "rx_packets") > 0);
    }

    @Test
    public void pingIpv6LinkLocalWithScopeBothDirections() throws Exception {
        pingBothWays("h1", new String[] {"-6", linkLocal("h2") + "%ib0"}, "h2", new String[] {"-6", linkLocal("h1") + "%ib0"});
    }

    /**
     * Addresses added with ip in the namespaces, before the tests: the device reads the kernel's
     * addresses every 2 s ({@code NetdevComponent.SYNC_SECONDS}), and that wait passes while other tests run.
     */
    @BeforeClass
    public static void addGlobalAddressesInTheKernel() throws Exception {
        Sh.run(10, "ip", "-n", "h1", "-6", "addr", "add", "fd00::1/64", "dev", "ib0", "nodad").ok("ip addr add");
        Sh.run(10, "ip", "-n", "h2", "-6", "addr", "add", "fd00::2/64", "dev", "ib0", "nodad").ok("ip addr add");
    }

    @Test
    public void pingIpv6GlobalAddedInTheKernelBothDirections() throws Exception {
        // Addresses added with ip in the namespace (addGlobalAddressesInTheKernel) reach the stack's
        // table (ND answers for them).
        awaitAddressUsable("ib1_1_ffff", "fd00::2");
        awaitAddressUsable("ib0_1_ffff", "fd00::1");
        pingBothWays("h1", new String[] {"-6", "fd00::2"}, "h2", new String[] {"-6", "fd00::1"});
    }

    private static void awaitAddressUsable(String link, String address) {
        String[] out = {""};
        await(address + " on " + link + " PREFERRED", () -> {
            out[0] = appliance().command("ipoib:addr list " + link, TIMEOUT);
            return out[0].lines().anyMatch(line -> line.contains(address + "/") && line.contains("PREFERRED"));
        }, () -> out[0]);
    }

    /** Sends the 20 MB file from h1 to h2 with nc and compares checksums. */
    private static void transfer(int port) throws Exception {
        transfer(port, data());
    }

    private static void transfer(int port, Path file) throws Exception {
        Path received = Files.createTempFile("netdev", ".received");
        File log = File.createTempFile("netdev-nc", ".log");
        try {
            Process server = Sh.start(log, Sh.in("h2", "sh", "-c", "exec nc -l -p " + port + " > " + received));
            awaitListening("h2", port);
            Sh.run(TIMEOUT * 2, Sh.in("h1", "sh", "-c", "nc -N 10.0.0.2 " + port + " < " + file)).ok("nc client");
            assertTrue("nc server ended", server.waitFor(TIMEOUT, TimeUnit.SECONDS));
            assertEquals(sha256(file), sha256(received));
        } finally {
            Files.deleteIfExists(received);
            log.delete();
        }
    }

    private static void awaitListening(String ns, int port) throws Exception {
        Sh.awaitListening(ns, port, TIMEOUT);
    }

    /**
     * The kernel hands h1's device TCP segments larger than the MTU (segmentation offload is on
     * by default), the bridge cuts them; h2's bridge merges segments of one poll for its kernel
     * (receive coalescing), and h2's kernel, which checks every checksum, receives the file intact.
     */
    @Test
    public void tcpTwentyMegabytesArriveIdentical() throws Exception {
        long segmentsBefore = counter("ib0_1_ffff", "tx_tso_segments");
        long coalescedBefore = counter("ib1_1_ffff", "rx_gro_segments");
        transfer(5001);
        String list = appliance().command("ipoib:netdev", TIMEOUT);
        assertTrue(list, list.contains("ib0_1_ffff: device ib0  netns h1  mtu 2044  link UP  offload tso,csum"));
        assertTrue(list, counter("ib0_1_ffff", "tx_tso_segments") > segmentsBefore);
        assertTrue(list, counter("ib1_1_ffff", "rx_gro_segments") > coalescedBefore);
    }

    @Test
    public void curlFetchesTwentyMegabytesFromPythonHttpServer() throws Exception {
        Path received = Files.createTempFile("netdev", ".fetched");
        File log = File.createTempFile("netdev-http", ".log");
        Process server = Sh.start(log, Sh.in("h2", "python3", "-m", "http.server", "8000", "--bind", "10.0.0.2",
                "--directory", data().getParent().toString()));
        try {
            awaitListening("h2", 8000);
            Sh.run(TIMEOUT * 2, Sh.in("h1", "curl", "-sS", "-f", "-o", received.toString(),
                    "http://10.0.0.2:8000/" + data().getFileName())).ok("curl");
            assertEquals(sha256(data()), sha256(received));
        } finally {
            server.destroy();
            server.waitFor();
            Files.deleteIfExists(received);
            log.delete();
        }
    }

    /**
     * iperf3 completes, and on a clean fabric TCP loses nothing it has to send again: 100 MB from
     * h1 to h2 with fewer than 0.1 % of the sender's segments retransmitted, by h1's kernel's own
     * count ({@code /proc/net/snmp}, Tcp OutSegs and RetransSegs, in h1's namespace).
     */
    @Test
    public void iperf3CompletesAndTcpOnACleanFabricRetransmitsAlmostNothing() throws Exception {
        long[] before = tcpSegments("h1");
        Process server = Sh.start(File.createTempFile("iperf3", ".log"), Sh.in("h2", "iperf3", "-s", "-1", "-p", "5204"));
        awaitListening("h2", 5204);
        String out = Sh.run(4 * TIMEOUT, Sh.in("h1", "iperf3", "-c", "10.0.0.2", "-p", "5204", "-n", "100M"))
                .ok("iperf3").output();
        assertTrue(out, out.contains("receiver"));
        assertTrue(server.waitFor(TIMEOUT, TimeUnit.SECONDS));
        long[] after = tcpSegments("h1");
        long sent = after[0] - before[0];
        long retransmitted = after[1] - before[1];
        assertTrue("at least 100 MB in segments of at most 2004 octets: " + sent, sent >= 100_000_000L / 2004);
        assertTrue(retransmitted + " of " + sent + " segments retransmitted (at most 0.1 %)\n" + out
                + appliance().command("ipoib:stats", TIMEOUT) + appliance().command("ipoib:netdev", TIMEOUT),
                retransmitted * 1000 < sent);
    }

    /** Tcp OutSegs and RetransSegs of a namespace's kernel, from the two Tcp lines of {@code /proc/net/snmp}. */
    private static long[] tcpSegments(String ns) throws Exception {
        String snmp = Sh.run(10, Sh.in(ns, "cat", "/proc/net/snmp")).ok("cat /proc/net/snmp").output();
        List<String> tcp = snmp.lines().filter(l -> l.startsWith("Tcp:")).toList();
        List<String> names = Arrays.asList(tcp.get(0).split("\\s+"));
        String[] values = tcp.get(1).split("\\s+");
        return new long[] {Long.parseLong(values[names.indexOf("OutSegs")]),
            Long.parseLong(values[names.indexOf("RetransSegs")])};
    }

    /** 4 MiB under each fault: some 2 000 packets of 2 044 octets, of which about a hundred lost or reordered. */
    @Test
    public void tcpSurvivesLossAndReorder() throws Exception {
        Path part = Files.createTempFile("netdev", ".part");
        try {
            Files.write(part, Arrays.copyOf(Files.readAllBytes(data()), 4 * 1024 * 1024));
            appliance().command("fabric:fault loss 5", TIMEOUT);
            transfer(5002, part);
            String stats = appliance().command("fabric:stats", TIMEOUT);
            assertTrue("the fabric dropped packets:\n" + stats, stats.matches("(?s).*fault_loss\\D*[1-9].*"));
            appliance().command("fabric:clear", TIMEOUT);
            appliance().command("fabric:fault reorder 5", TIMEOUT);
            transfer(5003, part);
        } finally {
            appliance().command("fabric:clear", TIMEOUT);
            Files.deleteIfExists(part);
        }
    }

    @Test
    public void tcpConnectionSurvivesAResetOfTheReceiversPort() throws Exception {
        File log = File.createTempFile("iperf3", ".log");
        Process server = Sh.start(log, Sh.in("h2", "iperf3", "-s", "-1", "-p", "5202"));
        awaitListening("h2", 5202);
        File clientLog = File.createTempFile("iperf3c", ".log");
        // Long enough to be under way before the reset and to go on after it: iperf3's last exchange
        // also crosses the link, so a transfer that ends while the link is down waits for it.
        Process client = Sh.start(clientLog, Sh.in("h1", "iperf3", "-c", "10.0.0.2", "-p", "5202", "-t", "2", "-i", "0.5"));
        // Reset once the transfer is under way (its first interval reported).
        Await.until("iperf3's first interval", java.time.Duration.ofSeconds(TIMEOUT), java.time.Duration.ofMillis(50),
                () -> read(clientLog).contains("sec"), () -> read(clientLog));
        String qpnBefore = h2Qpn();
        appliance().command("fabric:reset loop1/1", TIMEOUT);
        appliance().command("ipoib:await ib1_1_ffff 30", TIMEOUT);
        assertTrue("iperf3 ended", client.waitFor(TIMEOUT, TimeUnit.SECONDS));
        String out = Files.readString(clientLog.toPath());
        assertEquals("iperf3 across the reset:\n" + out, 0, client.exitValue());
        assertTrue(out, out.contains("receiver"));
        assertTrue(server.waitFor(TIMEOUT, TimeUnit.SECONDS));
        // The reset gave h2 a new QPN (the link may still be coming back when iperf3 is done).
        String[] qpnAfter = {qpnBefore};
        await("the reset gives h2 a new QPN", () -> !qpnBefore.equals(qpnAfter[0] = h2Qpn()),
                () -> "(" + qpnBefore + " before, " + qpnAfter[0] + " after)");
        // The reset port also carries pb and cmb: the other tests find every host up again.
        NetdevHosts.awaitAllUp();
    }

    /** The QPN of h2's interface, from ipoib:links. */
    private static String h2Qpn() throws Exception {
        String links = appliance().command("ipoib:links", TIMEOUT);
        Matcher m = Pattern.compile("(?s)ib1_1_ffff: \\S+.*?qpn (0x[0-9a-f]+)").matcher(links);
        assertTrue(links, m.find());
        return m.group(1);
    }

    /**
     * An application's UDP_SEGMENT send (Linux's UDP GSO, as QUIC stacks use it): h1's kernel hands
     * the device 10 240 octets at once, the bridge cuts them into the datagrams the application
     * asked for, and h2's application receives each with its own length and checksum (h2's kernel
     * checks it).
     */
    @Test
    public void aUdpSegmentSendArrivesAsTheDatagramsTheApplicationAskedFor() throws Exception {
        String receive = "import socket,sys,hashlib\n"
                + "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.bind(('10.0.0.2',7777)); s.settimeout(20)\n"
                + "print('ready',flush=True); sizes=[]; h=hashlib.sha256()\n"
                + "while sum(sizes)<10240:\n"
                + "    d=s.recv(65535); sizes.append(len(d)); h.update(d)\n"
                + "print('sizes',sizes,'sha',h.hexdigest(),flush=True)\n";
        String send = "import socket\n"
                + "s=socket.socket(socket.AF_INET,socket.SOCK_DGRAM); s.setsockopt(socket.SOL_UDP,103,1000)\n"
                + "s.sendto(bytes(range(256))*40,('10.0.0.2',7777))\n"; // 103: UDP_SEGMENT (linux/udp.h)
        byte[] sent = new byte[10240]; // bytes(range(256))*40
        for (int i = 0; i < sent.length; i++) {
            sent[i] = (byte) i;
        }
        String expectedSha = java.util.HexFormat.of().formatHex(java.security.MessageDigest.getInstance("SHA-256").digest(sent));
        long before = counter("ib0_1_ffff", "tx_uso_datagrams");
        File log = File.createTempFile("uso", ".log");
        Process receiver = Sh.start(log, Sh.in("h2", "python3", "-c", receive));
        try {
            Await.until("the receiver bound in h2", java.time.Duration.ofSeconds(TIMEOUT),
                    () -> read(log).contains("ready"), () -> read(log));
            Sh.run(TIMEOUT, Sh.in("h1", "python3", "-c", send)).ok("UDP_SEGMENT sender");
            assertTrue("receiver finished: " + Files.readString(log.toPath()), receiver.waitFor(TIMEOUT, TimeUnit.SECONDS));
            String out = Files.readString(log.toPath());
            assertTrue(out, out.contains("sizes [1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 240] sha "
                    + expectedSha));
            assertTrue("the bridge cut the send (UDP segmentation offload): " + appliance().command("ipoib:netdev", TIMEOUT),
                    counter("ib0_1_ffff", "tx_uso_datagrams") >= before + 11);
        } finally {
            receiver.destroy();
            receiver.waitFor();
            log.delete();
        }
    }

    /**
     * A host cannot configure another through Neighbor Discovery hidden behind an extension header:
     * h1 sends a Router Advertisement for fd00:99::/64 (on-link, autonomous) behind a Destination
     * Options header, which the kernel builds itself from a raw ICMPv6 socket with the sticky
     * IPV6_DSTOPTS option, then a UDP datagram behind the same header on the same path as a marker.
     * Once h2 has the marker, h2 must have neither a SLAAC address in the prefix nor a default route.
     */
    @Test
    public void aRouterAdvertisementBehindADestinationOptionsHeaderConfiguresNoOtherHost() throws Exception {
        String common = "import socket,struct\n"
                + "idx=socket.if_nametoindex('ib0')\n"
                + "DO=bytes([0,0,1,4,0,0,0,0])\n" // next header (the kernel sets it), length 0, PadN of 4 (RFC 8200 §4.2)
                + "def opened(kind,proto):\n"
                + "    s=socket.socket(socket.AF_INET6,kind,proto)\n"
                + "    s.setsockopt(socket.IPPROTO_IPV6,socket.IPV6_MULTICAST_IF,idx)\n"
                + "    s.setsockopt(socket.IPPROTO_IPV6,socket.IPV6_MULTICAST_HOPS,255)\n"
                + "    s.setsockopt(socket.IPPROTO_IPV6,socket.IPV6_DSTOPTS,DO)\n"
                + "    return s\n";
        String send = common
                // RFC 4861 §4.2: RA, hop limit 64, router lifetime 1800 s; §4.6.2: prefix fd00:99::/64, L and A set.
                + "ra=struct.pack('!BBHBBHII',134,0,0,64,0,1800,0,0)+struct.pack('!BBBBIII16s',3,4,64,0xC0,86400,14400,0,"
                + "socket.inet_pton(socket.AF_INET6,'fd00:99::'))\n"
                + "opened(socket.SOCK_RAW,socket.IPPROTO_ICMPV6).sendto(ra,('ff02::1',0,0,idx))\n"
                + "opened(socket.SOCK_DGRAM,0).sendto(b'marker',('ff02::1',5999,0,idx))\n";
        String receive = "import socket\n"
                + "s=socket.socket(socket.AF_INET6,socket.SOCK_DGRAM); s.bind(('::',5999)); s.settimeout(30)\n"
                + "print('ready',flush=True); print(s.recv(100).decode(),flush=True)\n";
        long droppedBefore = counter("ib0_1_ffff", "tx_kernel_nd_dropped");
        File log = File.createTempFile("nd-marker", ".log");
        Process receiver = Sh.start(log, Sh.in("h2", "python3", "-c", receive));
        try {
            Await.until("the marker's receiver bound in h2", java.time.Duration.ofSeconds(TIMEOUT),
                    () -> read(log).contains("ready"), () -> read(log));
            Sh.run(TIMEOUT, Sh.in("h1", "python3", "-c", send)).ok("the RA behind Destination Options");
            assertTrue("h2 got the marker: " + read(log), receiver.waitFor(TIMEOUT, TimeUnit.SECONDS));
            assertTrue(read(log), read(log).contains("marker"));
        } finally {
            receiver.destroy();
            receiver.waitFor();
            log.delete();
        }
        String addresses = Sh.run(10, "ip", "-n", "h2", "-6", "addr", "show", "dev", "ib0").ok("ip addr").output();
        assertFalse("h2 configured an address from h1's RA:\n" + addresses, addresses.contains("fd00:99:"));
        String routes = Sh.run(10, "ip", "-n", "h2", "-6", "route", "show").ok("ip route").output();
        assertFalse("h2 took h1 as its default router:\n" + routes, routes.contains("default"));
        assertTrue("h1's bridge dropped the kernel's RA: " + appliance().command("ipoib:netdev", TIMEOUT),
                counter("ib0_1_ffff", "tx_kernel_nd_dropped") > droppedBefore);
    }

    @Test
    public void udpMulticastJoinBecomesAFullMemberAndLeavesAgain() throws Exception {
        String mgid = "ff12:401b:ffff::f01:101"; // 239.1.1.1 in the default partition (RFC 4391 §4)
        File log = File.createTempFile("socat", ".log");
        Process receiver = Sh.start(log, Sh.in("h2", "socat", "-u",
                "UDP4-RECV:5400,ip-add-membership=239.1.1.1:10.0.0.2", "STDOUT"));
        try {
            awaitFullMember(mgid, true);
            Sh.run(TIMEOUT, Sh.in("h1", "sh", "-c",
                    "echo hello-over-ipoib | socat -u STDIN UDP4-DATAGRAM:239.1.1.1:5400,ip-multicast-if=10.0.0.1"))
                    .ok("socat sender");
            Await.until("h2 receives the datagram", java.time.Duration.ofSeconds(TIMEOUT), java.time.Duration.ofMillis(20),
                    () -> read(log).contains("hello-over-ipoib"), () -> read(log));
        } finally {
            receiver.destroy();
            receiver.waitFor();
        }
        // The socket closed: the kernel reports leaving, the port leaves the IB group.
        awaitFullMember(mgid, false);
    }

    @Test
    public void theDeviceMulticastListBecomesJoinsAsLinuxIpoibDoes() throws Exception {
        // 224.0.0.1 is on every device's list but never reported (RFC 3376 §6): the list is read.
        String allHosts = "ff12:401b:ffff::1"; // RFC 4391 §4: the low 28 bits of 224.0.0.1
        String[] section = {""};
        // The hosts of the default partition, h1..h4 (limited members join with the full P_Key's MGID).
        await("h1..h4 FullMembers of " + allHosts, () -> fullMembers(section[0] = section(allHosts)) == 4,
                () -> section[0]);
    }

    /** A group's section of fabric:groups ("" when the group does not exist). */
    private static String section(String mgid) throws Exception {
        String groups = appliance().command("fabric:groups", TIMEOUT);
        int at = groups.indexOf(mgid + " ");
        return at < 0 ? "" : groups.substring(at).split("\n(?=\\S)", 2)[0];
    }

    /** The ports that are FullMembers in a group's section of fabric:groups (not SendOnlyFullMembers). */
    private static long fullMembers(String section) {
        return FULL_MEMBER.matcher(section).results().count();
    }

    private static final Pattern FULL_MEMBER = Pattern.compile("(?m)^\\s+\\S+\\s+FullMember\\s*$");

    /** Waits until the group has (or no longer has) a FullMember in fabric:groups. */
    private static void awaitFullMember(String mgid, boolean present) {
        String[] section = {""};
        await(mgid + (present ? " has a" : " has no") + " FullMember",
                () -> (fullMembers(section[0] = section(mgid)) > 0) == present, () -> section[0]);
    }

    @Test
    public void plainJavaSocketsAcrossTheFabric() throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // The test classes as compiled (the source launcher would compile them again in each namespace).
        String classes = Path.of(EchoServer.class.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        File log = File.createTempFile("echo-server", ".log");
        Process server = Sh.start(log, Sh.in("h2", java, "-cp", classes, EchoServer.class.getName(), "7000"));
        try {
            awaitListening("h2", 7000);
            String out = Sh.run(TIMEOUT * 2, Sh.in("h1", java, "-cp", classes, EchoClient.class.getName(), "10.0.0.2",
                    "7000", "3000000")).ok("EchoClient").output();
            assertTrue(out, out.contains("echoed 3000000 bytes identical via 10.0.0.2"));
            assertTrue(server.waitFor(TIMEOUT, TimeUnit.SECONDS));
        } finally {
            server.destroy();
            server.waitFor();
            log.delete();
        }
    }
}
