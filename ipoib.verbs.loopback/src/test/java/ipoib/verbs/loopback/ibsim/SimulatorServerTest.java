package ipoib.verbs.loopback.ibsim;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The ibsim protocol server against Debian's ibsim as the oracle and real clients:
 * umad2sim's own {@code ibstat}, and a client that speaks {@code include/ibsim.h} datagrams.
 */
class SimulatorServerTest {
    /** One switch, two HCAs: ibsim's net-file format. */
    private static final String NET = "Switch\t8 \"sw\"\n[1]\t\"H1\"[1]\n[2]\t\"H2\"[1]\n\n"
            + "Hca\t1 \"H1\"\n[1]\t\"sw\"[1]\n\nHca\t1 \"H2\"\n[1]\t\"sw\"[2]\n";
    private static final long WAIT_MILLIS = 5000;
    private static final int SELF = (int) ProcessHandle.current().pid();

    @TempDir
    Path dir;
    private final List<String> log = new CopyOnWriteArrayList<>();
    private final List<AutoCloseable> toClose = new ArrayList<>();

    @AfterEach
    void closeAll() throws Exception {
        for (AutoCloseable c : toClose.reversed()) {
            c.close();
        }
    }

    private <T extends AutoCloseable> T closing(T c) {
        toClose.add(c);
        return c;
    }

    private static String socketName() {
        return "ipoib-test-" + SELF + "-" + System.nanoTime();
    }

    private SimulatorServer local(String name, StubPlane plane) throws IOException {
        return closing(SimulatorServer.local(name, plane, log::add, log::add));
    }

    /** Every control answer of one node, as a client asks for them. */
    record Answers(String node, byte[] port, byte[] vendor, byte[] gid, byte[] guid, byte[] nodeInfo,
                   Map<Integer, byte[]> portInfos, byte[] pkeys) {}

    private static Answers ask(String base, String node, int ports) throws IOException {
        try (SimTestClient c = new SimTestClient(base, SELF)) {
            byte[] info = new byte[44];
            ByteBuffer.wrap(info).order(ByteOrder.nativeOrder()).putInt(0, SELF);
            System.arraycopy(node.getBytes(), 0, info, 12, node.length());
            ByteBuffer connected = c.control(SimWire.CONNECT, 0, info);
            assertNotNull(connected, "no answer to CONNECT from @" + base + ":ctl");
            assertEquals(SimWire.CONNECT, connected.getInt(SimWire.CTL_TYPE), "CONNECT refused");
            int id = connected.getInt(SimWire.INFO_ID);
            Map<Integer, byte[]> portInfos = new LinkedHashMap<>();
            for (int p = 0; p <= ports; p++) {
                portInfos.put(p, get(c, id, SimWire.GET_PORTINFO, p));
            }
            Answers a = new Answers(SimWire.nodeId(connected), get(c, id, SimWire.GET_PORT, 0),
                    get(c, id, SimWire.GET_VENDOR, 0), get(c, id, SimWire.GET_GID, 0), get(c, id, SimWire.GET_GUID, 0),
                    get(c, id, SimWire.GET_NODEINFO, 0), portInfos, get(c, id, SimWire.GET_PKEYS, 0));
            assertEquals(SimWire.DISCONNECT, c.control(SimWire.DISCONNECT, id, new byte[0]).getInt(SimWire.CTL_TYPE));
            return a;
        }
    }

    private static byte[] get(SimTestClient c, int id, int type, int firstOctet) throws IOException {
        ByteBuffer answer = c.control(type, id, new byte[] {(byte) firstOctet});
        assertNotNull(answer, "no answer to control " + type);
        assertEquals(type, answer.getInt(SimWire.CTL_TYPE), "control " + type + " answered SIM_CTL_ERROR");
        byte[] data = new byte[SimWire.CTL_DATA];
        answer.get(SimWire.CTL_DATA_OFFSET, data);
        return data;
    }

    private static StubPlane.NodeAnswers stubOf(Answers a) {
        return new StubPlane.NodeAnswers(a.node(), a.portInfos().get(0)[28] & 0xff, a.nodeInfo(), a.portInfos(),
                a.pkeys());
    }

    private static void assertSameAnswers(Answers expected, Answers actual) {
        assertEquals(expected.node(), actual.node(), "CONNECT's node id");
        assertArrayEquals(expected.port(), actual.port(), "SIM_CTL_GET_PORT");
        assertArrayEquals(expected.vendor(), actual.vendor(), "SIM_CTL_GET_VENDOR");
        assertArrayEquals(expected.gid(), actual.gid(), "SIM_CTL_GET_GID");
        assertArrayEquals(expected.guid(), actual.guid(), "SIM_CTL_GET_GUID");
        assertArrayEquals(expected.nodeInfo(), actual.nodeInfo(), "SIM_CTL_GET_NODEINFO");
        for (var e : expected.portInfos().entrySet()) {
            assertArrayEquals(e.getValue(), actual.portInfos().get(e.getKey()), "SIM_CTL_GET_PORTINFO " + e.getKey());
        }
        assertArrayEquals(expected.pkeys(), actual.pkeys(), "SIM_CTL_GET_PKEYS");
    }

    @Test
    void everyControlIsAnsweredAsIbsimAnswersItAndIbstatShowsTheSameOnBothTransports() throws Exception {
        Answers h1;
        Answers sw;
        String ibstatH1;
        String ibstatSw;
        try (RealIbsim ibsim = RealIbsim.startManaged(dir, NET)) {
            // OpenSM has assigned LIDs, the SM LID and the GID prefix: the derived answers are not all zero.
            h1 = ask(ibsim.sockName(), "H1", 1);
            sw = ask(ibsim.sockName(), "sw", 2);
            ibstatH1 = RealIbsim.tool(dir, Map.of("IBSIM_SOCKNAME", ibsim.sockName(), "SIM_HOST", "H1"), "ibstat");
            ibstatSw = RealIbsim.tool(dir, Map.of("IBSIM_SOCKNAME", ibsim.sockName(), "SIM_HOST", "sw"), "ibstat", "-p");
        }
        assertTrue(ibstatH1.contains("State: Active") && !ibstatH1.contains("Base lid: 0\n"), ibstatH1);
        StubPlane plane = new StubPlane("sw", Map.of("H1", stubOf(h1), "sw", stubOf(sw)));

        String name = socketName();
        local(name, plane);
        assertSameAnswers(h1, ask(name, "H1", 1));
        assertSameAnswers(sw, ask(name, "sw", 2));
        assertEquals(ibstatH1, RealIbsim.tool(dir, Map.of("IBSIM_SOCKNAME", name, "SIM_HOST", "H1"), "ibstat"));
        assertEquals(ibstatSw, RealIbsim.tool(dir, Map.of("IBSIM_SOCKNAME", name, "SIM_HOST", "sw"), "ibstat", "-p"));

        int port = udpServer(plane);
        assertEquals(ibstatH1, RealIbsim.tool(dir, Map.of("IBSIM_SERVER_NAME", "127.0.0.1", "IBSIM_SERVER_PORT",
                Integer.toString(port), "SIM_HOST", "H1"), "ibstat"));
        assertEquals(0, closedClientsLeft(plane), "every tool's attachment was closed by its DISCONNECT");
    }

    /** A UDP server on 11 free ports; returns the control port. */
    private int udpServer(StubPlane plane) throws IOException {
        IOException last = null;
        for (int attempt = 0; attempt < 20; attempt++) {
            int port = ThreadLocalRandom.current().nextInt(20_000, 60_000);
            try {
                closing(SimulatorServer.udp(port, plane, log::add, log::add));
                return port;
            } catch (IOException inUse) {
                last = inUse;
            }
        }
        throw last;
    }

    private static long closedClientsLeft(StubPlane plane) {
        return plane.attachments.stream().filter(a -> !a.closed).count();
    }

    private static StubPlane syntheticPlane() {
        byte[] nodeInfo = new byte[64];
        nodeInfo[0] = 1; // BaseVersion
        nodeInfo[2] = 1; // NodeType: channel adapter
        nodeInfo[3] = 1; // NumberOfPorts
        for (int i = 0; i < 8; i++) {
            nodeInfo[12 + i] = (byte) (0x10 + i); // NodeGUID
        }
        byte[] portInfo = new byte[64];
        portInfo[17] = 5; // LID 5
        portInfo[28] = 1;
        portInfo[32] = 4; // Active
        byte[] pkeys = new byte[64];
        pkeys[0] = (byte) 0xff;
        pkeys[1] = (byte) 0xff;
        StubPlane.NodeAnswers h = new StubPlane.NodeAnswers("H1", 1, nodeInfo, Map.of(0, portInfo, 1, portInfo), pkeys);
        return new StubPlane("H1", Map.of("H1", h, "H2", new StubPlane.NodeAnswers("H2", 1, nodeInfo,
                Map.of(0, portInfo), pkeys)));
    }

    @Test
    void theEleventhClientIsRefusedWithALogLineAndASlotFreedByDisconnectIsTakenAgain() throws Exception {
        String name = socketName();
        SimulatorServer server = local(name, syntheticPlane());
        List<Process> alive = new ArrayList<>();
        try {
            List<SimTestClient> clients = new ArrayList<>();
            for (int i = 0; i <= SimWire.MAX_CLIENTS; i++) {
                Process p = new ProcessBuilder("sleep", "60").start(); // a live pid per client, as umad2sim's
                alive.add(p);
                clients.add(closing(new SimTestClient(name, (int) p.pid())));
            }
            for (int i = 0; i < SimWire.MAX_CLIENTS; i++) {
                assertEquals(SimWire.CONNECT, clients.get(i).connect("H1", false));
                assertEquals(i, clients.get(i).clientId());
            }
            SimTestClient eleventh = clients.get(SimWire.MAX_CLIENTS);
            assertEquals(SimWire.ERROR, eleventh.connect("H1", false));
            assertTrue(log.stream().anyMatch(l -> l.contains("refused simulator client pid " + alive.getLast().pid())
                    && l.contains("all 10 client slots are taken")), String.join("\n", log));
            assertEquals(1, server.counters().clientsRefused());

            assertEquals(SimWire.DISCONNECT,
                    clients.get(3).control(SimWire.DISCONNECT, 3, new byte[0]).getInt(SimWire.CTL_TYPE));
            assertEquals(SimWire.CONNECT, eleventh.connect("H1", false));
            assertEquals(3, eleventh.clientId());
        } finally {
            alive.forEach(Process::destroyForcibly);
        }
    }

    @Test
    void anUnknownNodeAndASecondSmOnOneNodeAreRefused() throws Exception {
        String name = socketName();
        SimulatorServer server = local(name, syntheticPlane());
        try (SimTestClient a = new SimTestClient(name, SELF)) {
            assertEquals(SimWire.ERROR, a.connect("H9", false));
            assertTrue(log.stream().anyMatch(l -> l.contains("for node \"H9\": no node \"H9\"")), String.join("\n", log));
            assertEquals(SimWire.CONNECT, a.connect("H1", true));
        }
        Process other = new ProcessBuilder("sleep", "60").start();
        try (SimTestClient b = new SimTestClient(name, (int) other.pid())) {
            assertEquals(SimWire.ERROR, b.connect("H1", true));
            assertTrue(log.stream().anyMatch(l -> l.contains("an SM is already attached at node \"H1\"")),
                    String.join("\n", log));
            assertEquals(SimWire.CONNECT, b.connect("H2", true));
        } finally {
            other.destroyForcibly();
        }
        assertEquals(2, server.counters().clientsRefused());
    }

    @Test
    void malformedDatagramsAreCountedAndDroppedAndTheServerGoesOn() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer server = local(name, plane);
        SimTestClient a = closing(new SimTestClient(name, SELF));
        assertEquals(SimWire.CONNECT, a.connect("H1", false));

        ByteBuffer shortCtl = ByteBuffer.allocateDirect(79);
        a.sendControl(shortCtl, 79); // not a struct sim_ctl: no answer
        ByteBuffer badMagic = ByteBuffer.allocateDirect(SimWire.CTL_SIZE).order(ByteOrder.nativeOrder());
        badMagic.putInt(SimWire.CTL_MAGIC, 0x12345678).putInt(SimWire.CTL_TYPE, SimWire.GET_NODEINFO);
        a.sendControl(badMagic, SimWire.CTL_SIZE);
        awaitTrue(() -> server.counters().malformedDropped() == 2, "two control datagrams dropped");

        assertEquals(SimWire.ERROR, a.control(42, a.clientId(), new byte[0]).getInt(SimWire.CTL_TYPE));
        assertEquals(SimWire.ERROR, a.control(SimWire.GET_NODEINFO, 7, new byte[0]).getInt(SimWire.CTL_TYPE));
        Process other = new ProcessBuilder("sleep", "60").start();
        try (SimTestClient intruder = new SimTestClient(name, (int) other.pid())) {
            assertEquals(SimWire.ERROR,
                    intruder.control(SimWire.DISCONNECT, a.clientId(), new byte[0]).getInt(SimWire.CTL_TYPE),
                    "a control for a slot from another address");
        } finally {
            other.destroyForcibly();
        }
        assertEquals(5, server.counters().malformedDropped());

        a.send(ByteBuffer.allocateDirect(100), 100);
        ByteBuffer tooLong = ByteBuffer.allocateDirect(SimWire.REQUEST_SIZE).order(ByteOrder.BIG_ENDIAN);
        tooLong.putLong(SimWire.REQ_LENGTH, 257);
        a.send(tooLong, SimWire.REQUEST_SIZE);
        awaitTrue(() -> server.counters().malformedDropped() == 7, "two request datagrams dropped");
        assertNull(plane.sent.poll(), "nothing malformed reached the plane");

        assertEquals(5, a.get(SimWire.GET_PORT)[0], "the client still attached, its LID answered");
        assertEquals(1, server.clients().size());
    }

    /**
     * A tool under the RMPP shim sends its final ACK and exits at once: umad2sim's DISCONNECT
     * arrives on the control socket right behind the MAD on the data socket. The MAD still
     * reaches the plane (the data sockets are read before the control socket), not dropped as a
     * datagram for a slot without a client.
     */
    @Test
    void aMadSentJustBeforeItsClientDisconnectsReachesThePlane() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer server = local(name, plane);
        Process other = new ProcessBuilder("sleep", "60").start(); // a live pid for the second client
        try {
            SimTestClient a = closing(new SimTestClient(name, SELF));
            SimTestClient b = closing(new SimTestClient(name, (int) other.pid()));
            assertEquals(SimWire.CONNECT, a.connect("H1", false));
            assertEquals(SimWire.CONNECT, b.connect("H2", false));
            ByteBuffer req = ByteBuffer.allocateDirect(SimWire.REQUEST_SIZE).order(ByteOrder.BIG_ENDIAN);
            req.putLong(SimWire.REQ_LENGTH, 256);
            CountDownLatch release = new CountDownLatch(1);
            plane.hold = release;
            a.send(req, SimWire.REQUEST_SIZE);
            assertTrue(plane.holding.await(WAIT_MILLIS, TimeUnit.MILLISECONDS), "the server holds a's MAD");
            // While the server's thread is in the plane: b's MAD, then b's DISCONNECT, both waiting for its next poll.
            b.send(req, SimWire.REQUEST_SIZE);
            ByteBuffer disconnect = ByteBuffer.allocateDirect(SimWire.CTL_SIZE).order(ByteOrder.nativeOrder());
            disconnect.putInt(SimWire.CTL_MAGIC, SimWire.MAGIC).putInt(SimWire.CTL_CLIENT, b.clientId())
                    .putInt(SimWire.CTL_TYPE, SimWire.DISCONNECT);
            b.sendControl(disconnect, SimWire.CTL_SIZE);
            release.countDown();
            assertNotNull(plane.sent.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS), "a's MAD");
            StubPlane.Sent fromB = plane.sent.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
            assertNotNull(fromB, "b's MAD reached the plane; log: " + log);
            assertEquals("H2", fromB.node());
            awaitTrue(() -> server.clients().size() == 1, "b detached after its MAD");
            assertEquals(0, server.counters().malformedDropped(), String.join("\n", log));
        } finally {
            other.destroyForcibly();
        }
    }

    @Test
    void requestsCrossTheServerFieldForFieldInBothDirections() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer server = local(name, plane);
        SimTestClient a = closing(new SimTestClient(name, SELF));
        assertEquals(SimWire.CONNECT, a.connect("H1", false));

        // As umad2sim_write lays one out: __be16 LIDs in uint32 fields, __be32 QPs, htobe64 length.
        byte[] mad = new byte[256];
        for (int i = 0; i < mad.length; i++) {
            mad[i] = (byte) (i * 7);
        }
        ByteBuffer req = ByteBuffer.allocateDirect(SimWire.REQUEST_SIZE);
        req.put(0, new byte[] {0x00, 0x12, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1});
        req.put(24, new byte[] {0, 0, 0, 0, 0, 0, 1, 0});
        req.put(32, mad);
        a.send(req, SimWire.REQUEST_SIZE);
        StubPlane.Sent sent = plane.sent.poll(WAIT_MILLIS, TimeUnit.MILLISECONDS);
        assertNotNull(sent);
        assertEquals(new StubPlane.Sent("H1", 0x12, 0, 1, 1, sent.mad(), 256), sent);
        assertArrayEquals(mad, sent.mad());

        plane.attachments.getFirst().receiver.received(0x0001, 0x0012, 0x010203, 1, 110, mad, 256);
        ByteBuffer got = a.receive();
        assertNotNull(got);
        assertEquals(SimWire.REQUEST_SIZE, got.limit());
        byte[] head = new byte[32];
        got.get(0, head);
        // What umad2sim_read takes: ntohl(status) 110, be64toh(length) 256, addr.lid = slid, addr.qpn = sqp.
        assertArrayEquals(new byte[] {0x00, 0x01, 0, 0, 0x00, 0x12, 0, 0, 0, 1, 2, 3, 0, 0, 0, 1, 0, 0, 0, 110,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0}, head);
        byte[] body = new byte[256];
        got.get(32, body);
        assertArrayEquals(mad, body);
        assertEquals(1, server.counters().madsFromClients());
        assertEquals(1, server.counters().madsToClients());
    }

    @Test
    void aClientWhoseProcessEndedIsDetached() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer server = local(name, plane);
        Process client = new ProcessBuilder("sleep", "60").start();
        SimTestClient a = closing(new SimTestClient(name, (int) client.pid()));
        assertEquals(SimWire.CONNECT, a.connect("H1", false));
        client.destroyForcibly().waitFor();
        awaitTrue(() -> server.clients().isEmpty(), "the client detached");
        assertTrue(plane.attachments.getFirst().closed);
        // The server logs after it has detached the client: wait for the line, not only the detach.
        awaitTrue(() -> log.stream().anyMatch(l -> l.contains("(pid " + client.pid() + ") detached: its process has ended")), "the detach logged");
        assertEquals(1, server.counters().clientsVanished());
    }

    @Test
    void aClientWhoseSocketIsGoneIsDetachedWhenAMadCannotReachIt() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer server = local(name, plane);
        SimTestClient a = closing(new SimTestClient(name, SELF));
        assertEquals(SimWire.CONNECT, a.connect("H1", false));
        a.closeInput();
        plane.attachments.getFirst().receiver.received(1, 5, 1, 1, 0, new byte[256], 256);
        awaitTrue(() -> server.clients().isEmpty(), "the client detached");
        assertTrue(plane.attachments.getFirst().closed);
        // The server logs after it has detached the client: wait for the line, not only the detach.
        awaitTrue(() -> log.stream().anyMatch(l -> l.contains("detached: its socket refuses datagrams")), "the detach logged");
        assertEquals(1, server.counters().clientsVanished());
    }

    @Test
    void theNamesAreFreeAgainWhenTheServerStops() throws Exception {
        String name = socketName();
        StubPlane plane = syntheticPlane();
        SimulatorServer.local(name, plane, log::add, log::add).close();
        SimulatorServer again = local(name, plane);
        IOException taken = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> SimulatorServer.local(name, plane, log::add, log::add));
        assertTrue(taken.getMessage().contains("cannot bind abstract socket '" + name + ":ctl': Address already in use"),
                taken.getMessage());
        assertEquals(List.of(), again.clients());
    }

    private static void awaitTrue(BooleanSupplier condition, String what) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MILLIS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("not within " + WAIT_MILLIS + " ms: " + what);
            }
            LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(5)); // a condition another thread sets
        }
    }
}
