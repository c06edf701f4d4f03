package ipoib.link.internal.cm;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.LinkAddress;
import ipoib.api.link.EtherType;
import ipoib.api.link.FrameHandler;
import ipoib.api.link.LinkPath;
import ipoib.api.link.LinkState;
import ipoib.api.link.TransmitResult;
import ipoib.codec.cm.CmRej;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkFixture;
import ipoib.link.internal.PathEntry;
import ipoib.link.internal.commands.CmCommand;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.fabric.Faults;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Connected mode between two interfaces on the loopback fabric: the CM exchange on each port's
 * QP1, frames of up to 65 520 octets over RC, the fallback to UD for peers without the RC flag and
 * after a REJ, repair of loss and reordering by the RC transport, teardown on a port reset and of
 * idle connections. The link's timers (idle check, retry after a failure) run on a manual loop;
 * the CM and the fabric on their own threads, which the test waits for by polling.
 */
class ConnectedModeTest {
    private static final int ETHERTYPE = 0x88B5;

    final LinkFixture fixture = new LinkFixture();
    final LoopbackSubnet subnet = fixture.subnet;
    final ManualControlLoop loop = fixture.loop;
    final List<String> log = fixture.log;
    final List<byte[]> receivedByB = new CopyOnWriteArrayList<>();
    final List<Integer> sourceQpnsAtB = new CopyOnWriteArrayList<>();
    final List<byte[]> receivedByA = new CopyOnWriteArrayList<>();
    final List<byte[]> ipFrames = new CopyOnWriteArrayList<>();
    LinkEngine a;
    LinkEngine b;

    ConnectedModeTest() {
        // Test frames by receiving link; IP frames (the ICMP errors the link makes) in one list.
        fixture.handlers = new FrameHandler[] {(link, frame) -> {
            byte[] copy = new byte[frame.payloadLength()];
            MemorySegment.copy(frame.buffer(), ValueLayout.JAVA_BYTE, frame.payloadOffset(), copy, 0, copy.length);
            if (frame.etherType() == EtherType.IPV4 || frame.etherType() == EtherType.IPV6) {
                ipFrames.add(copy);
            } else if (frame.etherType() == ETHERTYPE && link.name().equals("b")) {
                sourceQpnsAtB.add(frame.sourceQpn()); // first: the test waits on receivedByB
                receivedByB.add(copy);
            } else if (frame.etherType() == ETHERTYPE) {
                receivedByA.add(copy);
            }
        }};
    }

    @AfterEach
    void close() {
        fixture.close();
    }

    void until(String what, BooleanSupplier condition) {
        fixture.until(what, condition);
    }

    LinkEngine up(String name, String device, boolean connected) {
        LinkEngine e = fixture.engine(LinkFixture.config(name, device));
        e.setConnectedMode(connected);
        e.providerAvailable(subnet);
        until(name + " UP", () -> e.state() == LinkState.UP);
        return e;
    }

    /** a and b in connected mode, a's connection to b up (a first frame of {@code length} delivered); a's path to b. */
    LinkPath connectedPair(int length) throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", true);
        LinkPath ab = path(a, b);
        a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(length, 1)));
        until("connected", () -> receivedByB.size() == 1);
        return ab;
    }

    /** Sends, waiting while every send buffer is in flight; the result of the accepted send. */
    static TransmitResult sendAccepted(LinkEngine from, LinkPath path, LinkAddress to, byte[] frame) {
        TransmitResult r;
        while ((r = from.sendUnicast(path, to, ETHERTYPE, MemorySegment.ofArray(frame))) == TransmitResult.DROPPED_NO_BUFFER) {
            Thread.onSpinWait();
        }
        return r;
    }

    LinkPath path(LinkEngine from, LinkEngine to) throws Exception {
        CompletableFuture<LinkPath> f = from.acquirePath(to.gid(), false).toCompletableFuture();
        until("the path", f::isDone);
        return f.get();
    }

    static byte[] pattern(int length, int seed) {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (i * 31 + seed * 7 + (i >>> 8));
        }
        return b;
    }

    static CmLinkConnection only(LinkEngine e, boolean active) {
        List<CmLinkConnection> list = e.connectedMode().connections().stream().filter(c -> c.active == active).toList();
        assertEquals(1, list.size(), "connections " + list);
        return list.get(0);
    }

    @Test
    void connectedInterfacesCarry60000OctetFramesOverOneConnectionPerDirection() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", true);
        assertEquals(65520, a.mtu(), "IPOIB_CM_MTU");
        assertEquals(0x80, a.address().flags(), "the RC flag, Linux's IPOIB_FLAGS_RC");
        assertEquals("connected", a.mode());

        LinkPath ab = path(a, b);
        byte[] big = pattern(60_000, 1);
        TransmitResult first = a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(big));
        // Held while the REQ is answered (or sent at once when the set-up won the race with the copy).
        assertTrue(first == TransmitResult.QUEUED || first == TransmitResult.SENT, first.toString());
        until("the frame over RC", () -> receivedByB.size() == 1);
        assertArrayEquals(big, receivedByB.get(0));
        assertEquals(List.of(a.qpn().value()), sourceQpnsAtB, "the sender's UD QPN, from the REQ's private data");
        CmLinkConnection tx = only(a, true);
        assertEquals(CmLinkConnection.State.UP, tx.state);
        assertEquals(65520, tx.sendLimit - 4, "b receives 65 524-octet frames (IPOIB_CM_BUF_SIZE)");
        until("b's passive side established by the RTU", () -> only(b, false).state == CmLinkConnection.State.UP);

        LinkPath ba = path(b, a);
        for (int i = 0; i < 5; i++) {
            byte[] back = pattern(65_520, 10 + i);
            TransmitResult r = sendAccepted(b, ba, a.address(), back);
            assertTrue(r == TransmitResult.SENT || r == TransmitResult.QUEUED, r.toString());
        }
        until("five frames back", () -> receivedByA.size() == 5);
        for (int i = 0; i < 5; i++) {
            assertArrayEquals(pattern(65_520, 10 + i), receivedByA.get(i), "frame " + i + " in order and intact");
        }
        assertEquals(1, a.connectedMode().connections().stream().filter(c -> c.active).count(), "one tx per direction");
        assertEquals(1, a.connectedMode().connections().stream().filter(c -> !c.active).count(), "and one rx");
        assertEquals(TransmitResult.DROPPED_TOO_BIG,
                a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(new byte[65_521])));
    }

    @Test
    void aPeerWithoutTheRcFlagGetsUdAndWhatDoesNotFitUdIsTooBig() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", false);
        assertEquals(0, b.address().flags());
        assertEquals(2044, b.mtu());
        LinkPath ab = path(a, b);
        byte[] small = pattern(2044, 3);
        assertEquals(TransmitResult.SENT, a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(small)));
        until("the frame over UD", () -> receivedByB.size() == 1);
        assertArrayEquals(small, receivedByB.get(0));
        assertEquals(TransmitResult.DROPPED_TOO_BIG,
                a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(new byte[2045])));
        assertTrue(a.connectedMode().connections().isEmpty(), "no connection to a datagram-mode peer");
        // The draft's other capability bits (its RC 0x40, UC 0x20, RD 0x10) are not implemented:
        // a peer announcing them is sent to over UD as if they were zero (ignored on receive).
        LinkAddress draftFlags = new LinkAddress(0x70, b.qpn(), b.gid());
        assertEquals(TransmitResult.SENT, a.sendUnicast(ab, draftFlags, ETHERTYPE, MemorySegment.ofArray(small)));
        until("the frame to the address with the draft's flags over UD", () -> receivedByB.size() == 2);
        assertArrayEquals(small, receivedByB.get(1));
        assertEquals(TransmitResult.DROPPED_TOO_BIG,
                a.sendUnicast(ab, draftFlags, ETHERTYPE, MemorySegment.ofArray(new byte[2045])));
        assertTrue(a.connectedMode().connections().isEmpty(), "no connection for the draft's flags");

        // and the datagram-mode side sends to the connected one over UD
        LinkPath ba = path(b, a);
        assertEquals(TransmitResult.SENT, b.sendUnicast(ba, a.address(), ETHERTYPE, MemorySegment.ofArray(small)));
        until("b's frame over UD", () -> receivedByA.size() == 1);
        assertTrue(a.connectedMode().connections().isEmpty());
    }

    @Test
    void aRejectFallsBackToUdAndTheConnectionIsTriedAgainLater() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", false);
        LinkPath ab = path(a, b);
        // An address that claims RC although b does not listen: b's port CM rejects the REQ.
        LinkAddress claimed = new LinkAddress(0x80, b.qpn(), b.gid());
        byte[] small = pattern(1000, 4);
        TransmitResult held = a.sendUnicast(ab, claimed, ETHERTYPE, MemorySegment.ofArray(small));
        assertTrue(held == TransmitResult.QUEUED || held == TransmitResult.SENT, "held, or over UD once rejected: " + held);
        until("the held frame sent over UD after the REJ", () -> receivedByB.size() == 1);
        assertArrayEquals(small, receivedByB.get(0));
        CmLinkConnection failed = only(a, true);
        assertEquals(CmLinkConnection.State.FAILED, failed.state);
        assertTrue(failed.why.contains("reason " + CmRej.INVALID_SERVICE_ID), failed.why);
        assertEquals(1, a.connectedMode().rejected.sum());
        assertEquals(TransmitResult.SENT, a.sendUnicast(ab, claimed, ETHERTYPE, MemorySegment.ofArray(small)),
                "UD meanwhile");
        until("second frame over UD", () -> receivedByB.size() == 2);

        b.setConnectedMode(true);
        until("b listens", () -> b.connectedMode() != null);
        loop.advance(ConnectedMode.RETRY_NANOS, TimeUnit.NANOSECONDS);
        byte[] big = pattern(60_000, 5);
        TransmitResult again = a.sendUnicast(ab, claimed, ETHERTYPE, MemorySegment.ofArray(big));
        assertTrue(again == TransmitResult.QUEUED || again == TransmitResult.SENT,
                "a new attempt after the retry interval (a 60 000-octet frame does not fit UD): " + again);
        until("the frame over the new connection", () -> receivedByB.size() == 3);
        assertArrayEquals(big, receivedByB.get(2));
        assertEquals(CmLinkConnection.State.UP, only(a, true).state);

        // The same story in /metrics: one REJ, one connection established at the second attempt.
        Map<String, Long> metrics = new TreeMap<>();
        CmMetrics.collect((metric, value, labels) -> metrics.put(metric.name() + List.of(labels), value), List.of(a));
        assertEquals(1L, metrics.get("ipoib_cm_connections_rejected_total[a]"), metrics.toString());
        assertEquals(1L, metrics.get("ipoib_cm_connections_established_total[a]"), metrics.toString());
        assertEquals(1L, metrics.get("ipoib_cm_agent_messages_total[loop0, 1, received, rej]"), metrics.toString());
    }

    @Test
    void aFailingTaskOfThePortsCmThreadIsCountedAndLoggedOncePerInterval() throws Exception {
        a = up("a", "loop0", true);
        java.util.List<java.util.logging.LogRecord> logged = new CopyOnWriteArrayList<>();
        java.util.logging.Logger log = java.util.logging.Logger.getLogger("ipoib.runtime");
        java.util.logging.Handler handler = new java.util.logging.Handler() {
            @Override
            public void publish(java.util.logging.LogRecord record) {
                logged.add(record);
            }

            @Override
            public void flush() {
            }

            @Override
            public void close() {
            }
        };
        log.addHandler(handler);
        CmPortAgent agent = CmPortAgent.acquire(a.port());
        try {
            for (int i = 0; i < 3; i++) {
                agent.loop.execute(() -> {
                    throw new IllegalStateException("a CM task that fails");
                });
            }
            until("three failures counted", () -> a.connectedMode().agentCounters().get("loop_failures") == 3);
            assertEquals(1, logged.stream().filter(r -> r.getThrown() != null
                    && "a CM task that fails".equals(r.getThrown().getMessage())).count(), "one line per 10 s");
            assertTrue(CmCommand.describe(a).contains("loop_failures 3"), CmCommand.describe(a));
        } finally {
            agent.release();
            log.removeHandler(handler);
        }
    }

    @Test
    void aRepWithAnMtuOfFourOrLessIsRejectedAsLinuxDoes() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", false);
        // A passive side on b's port that answers with receive MTU 4 (ipoib_cm_rep_handler refuses it).
        CmPortAgent bAgent = CmPortAgent.acquire(b.port());
        try {
            java.util.List<String> closed = new CopyOnWriteArrayList<>();
            bAgent.agent.listen(ipoib.codec.cm.IpoibCm.serviceId(b.qpn().value()), new ipoib.cm.CmAgent.PassiveHandler() {
                @Override
                public ipoib.cm.CmDecision onRequest(ipoib.codec.cm.CmReq request, ipoib.cm.CmEndpoint from) {
                    return ipoib.cm.CmDecision.accept(0x123, 0x456, ipoib.codec.cm.IpoibCm.privateData(b.qpn().value(), 4));
                }

                @Override
                public void onClosed(ipoib.cm.CmConnection connection, String why) {
                    closed.add(why);
                }
            });
            LinkPath ab = path(a, b);
            LinkAddress claimed = new LinkAddress(0x80, b.qpn(), b.gid());
            a.sendUnicast(ab, claimed, ETHERTYPE, MemorySegment.ofArray(pattern(500, 1)));
            until("the frame over UD after the refused REP", () -> receivedByB.size() == 1);
            CmLinkConnection c = only(a, true);
            assertEquals(CmLinkConnection.State.FAILED, c.state);
            assertEquals("the REP's MTU 4 is not above 4", c.why);
            until("b's side rejected with reason consumer-defined", () -> closed.size() == 1);
            assertTrue(closed.get(0).contains("reason " + CmRej.CONSUMER_DEFINED), closed.toString());
        } finally {
            bAgent.release();
        }
    }

    @Test
    void connectedModeFramesAreInTheInterfaceCaptureCutAtTheSlotWithTheirLength(
            @org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
        java.nio.file.Path tshark = java.nio.file.Path.of("/usr/bin/tshark");
        if (!java.nio.file.Files.isExecutable(tshark)) {
            org.junit.jupiter.api.Assertions.fail("tshark is required for this test and was not found at " + tshark
                    + ": install Debian package 'tshark'; ./ipoib test does");
        }
        a = up("a", "loop0", true);
        b = up("b", "loop1", true);
        LinkPath ab = path(a, b);
        LinkPath ba = path(b, a);
        a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(10, 1)));
        b.sendUnicast(ba, a.address(), ETHERTYPE, MemorySegment.ofArray(pattern(10, 2)));
        until("both directions connected", () -> receivedByB.size() == 1 && receivedByA.size() == 1);
        java.nio.file.Path file = dir.resolve("rc.pcapng");
        a.captures().start(file, 10);
        a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(60_000, 3)));
        until("the big frame", () -> receivedByB.size() == 2);
        b.sendUnicast(ba, a.address(), ETHERTYPE, MemorySegment.ofArray(pattern(3000, 4)));
        until("the frame back", () -> receivedByA.size() == 2);
        a.captures().stop();
        Process p = new ProcessBuilder(tshark.toString(), "-r", file.toString(), "-T", "fields", "-E", "separator=,",
                "-e", "frame.interface_name", "-e", "frame.len", "-e", "frame.cap_len", "-e", "_ws.malformed")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes()).strip();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        // 40-octet pseudo-header, 4-octet header, payload; kept: the slot (40 + 4 + 4096).
        assertEquals("a out,60044,4140,\na in,3044,3044,", out);
    }

    @Test
    void lossAndReorderingOnRcAreRepairedByteForByte() throws Exception {
        LinkPath ab = connectedPair(100);
        subnet.fabric().setFaults(null, new Faults(5, 0, 10, 0, 0));
        int frames = 30;
        for (int i = 1; i <= frames; i++) {
            assertEquals(TransmitResult.SENT, sendAccepted(a, ab, b.address(), pattern(60_000, i)));
        }
        until(frames + " frames through loss and reordering", () -> receivedByB.size() == frames + 1);
        for (int i = 1; i <= frames; i++) {
            assertArrayEquals(pattern(60_000, i), receivedByB.get(i), "frame " + i);
        }
        assertTrue(subnet.fabric().counters().rcRetransmitted() > 0, "repaired by retransmission");
    }

    @Test
    void aSendThatExhaustsItsRetriesEndsTheConnectionAndThePeerGetsUd() throws Exception {
        LinkPath ab = connectedPair(100);
        subnet.fabric().setFaults(null, new Faults(100, 0, 0, 0, 0));
        assertEquals(TransmitResult.SENT, a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(100, 2))));
        CmLinkConnection c = only(a, true);
        // The RC transport gives up after 7 retries of ≈ 67 ms each (the fabric's own timers).
        until("the failed send handled", () -> a.connectedMode().failures.sum() == 1);
        assertEquals(CmLinkConnection.State.FAILED, c.state);
        assertTrue(c.why.contains("send failed: RETRY_EXCEEDED"), c.why);
        long overUd = a.connectedMode().sentOverUd.sum();
        assertEquals(TransmitResult.SENT, a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(100, 3))));
        assertEquals(overUd + 1, a.connectedMode().sentOverUd.sum(), "the peer's frames go over UD until the retry");
    }

    @Test
    void aPortResetTearsTheConnectionsDownAndTheyComeBack() throws Exception {
        LinkPath ab = connectedPair(30_000);
        ConnectedMode before = b.connectedMode();
        var oldQpn = b.qpn();

        subnet.fabric().resetPort(subnet.fabric().port("loop1", 1));
        until("b UP again with a new QPN", () -> b.state() == LinkState.UP && b.qpn() != null && !b.qpn().equals(oldQpn));
        assertTrue(before.connections().isEmpty(), "b's connections went with the reset");
        assertNotEquals(before, b.connectedMode());
        assertEquals(0x80, b.address().flags(), "still connected mode");

        // a learns the new address (ARP would tell it) and connects anew; the old connection is replaced.
        byte[] big = pattern(60_000, 2);
        until("a frame to b's new QPN over a new connection", () -> {
            a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(big));
            return receivedByB.size() >= 2;
        });
        assertArrayEquals(big, receivedByB.get(1));
        CmLinkConnection tx = only(a, true);
        assertEquals(b.qpn().value(), tx.peerUdQpn);
        assertEquals(CmLinkConnection.State.UP, tx.state);
    }

    @Test
    void idleConnectionsAreReapedAfter256SecondsOnTheLinksClock() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", true);
        LinkPath ab = path(a, b);
        a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(100, 1)));
        until("connected", () -> receivedByB.size() == 1 && !b.connectedMode().connections().isEmpty()
                && a.connectedMode().connections().stream().allMatch(c -> c.state == CmLinkConnection.State.UP));
        loop.advance(255, TimeUnit.SECONDS);
        assertEquals(CmLinkConnection.State.UP, only(a, true).state, "not idle long enough");
        loop.advance(2, TimeUnit.SECONDS);
        assertTrue(a.connectedMode().connections().isEmpty(), () -> "reaped: " + a.connectedMode().connections().stream()
                .map(c -> c.describe(loop.clock().nanoTime())).toList());
        assertEquals(1, a.connectedMode().reaped.sum());
        assertNull(ab instanceof PathEntry.Reference r ? r.entry.connection : null);
        until("b's side closed by the DREQ", () -> b.connectedMode().connections().isEmpty());
        // the next frame connects again
        a.sendUnicast(ab, b.address(), ETHERTYPE, MemorySegment.ofArray(pattern(100, 2)));
        until("reconnected", () -> receivedByB.size() == 2);
        assertEquals(CmLinkConnection.State.UP, only(a, true).state);
    }

    /** RFC 1071 one's-complement sum of 16-bit words (an independent model of the checksum). */
    static int onesComplementSum(byte[] b, int from, int to, long initial) {
        long sum = initial;
        for (int i = from; i < to; i += 2) {
            sum += ((b[i] & 0xFF) << 8) | (i + 1 < to ? b[i + 1] & 0xFF : 0);
        }
        while ((sum >>> 16) != 0) {
            sum = (sum & 0xFFFF) + (sum >>> 16);
        }
        return (int) sum;
    }

    static int u16(byte[] b, int at) {
        return ((b[at] & 0xFF) << 8) | (b[at + 1] & 0xFF);
    }

    @Test
    void aPacketOnlyUdCanCarryButTooBigForItGetsLinuxsIcmpErrorWithTheUdMtu() throws Exception {
        a = up("a", "loop0", true);
        b = up("b", "loop1", false);
        // IPv4: 3000 octets, UDP, from 10.9.0.1 to 10.9.0.2, a datagram-mode peer: UD only.
        byte[] v4 = pattern(3000, 9);
        MemorySegment s4 = MemorySegment.ofArray(v4);
        ipoib.codec.ip.Ipv4Header.write(s4, 0, 0, 3000, 0x1234, true, 64, 17, 0x0A090001, 0x0A090002);
        LinkPath ab = path(a, b);
        assertEquals(TransmitResult.DROPPED_TOO_BIG, a.sendUnicast(ab, b.address(), EtherType.IPV4, s4));
        until("the ICMP error", () -> ipFrames.size() == 1);
        byte[] icmp = ipFrames.get(0);
        assertEquals(20 + 8 + 28, icmp.length, "IPv4 header, ICMP header, the packet's header and 8 octets");
        assertEquals(0xFFFF, onesComplementSum(icmp, 0, 20, 0), "IPv4 header checksum");
        assertEquals(1, icmp[9], "protocol ICMP");
        assertEquals(0x0A090002, java.nio.ByteBuffer.wrap(icmp).getInt(12),
                "from the packet's destination, as from a router on the path: Linux drops, as a martian, an "
                        + "IPv4 packet from its own address (accept_local 0)");
        assertEquals(0x0A090001, java.nio.ByteBuffer.wrap(icmp).getInt(16), "to the packet's source");
        assertEquals(3, icmp[20], "destination unreachable");
        assertEquals(4, icmp[21], "fragmentation needed and DF set");
        assertEquals(2044, u16(icmp, 26), "next-hop MTU: the UD MTU (RFC 1191)");
        assertEquals(0xFFFF, onesComplementSum(icmp, 20, icmp.length, 0), "ICMP checksum");
        assertArrayEquals(java.util.Arrays.copyOf(v4, 28), java.util.Arrays.copyOfRange(icmp, 28, 56));

        // None for IPv4 to the broadcast group (a subnet broadcast), as Linux's __icmp_send.
        byte[] toAll = pattern(3000, 11);
        MemorySegment sAll = MemorySegment.ofArray(toAll);
        ipoib.codec.ip.Ipv4Header.write(sAll, 0, 0, 3000, 0x1235, true, 64, 17, 0x0A090001, 0x0A0900FF);
        assertEquals(TransmitResult.DROPPED_TOO_BIG, a.sendBroadcast(EtherType.IPV4, sAll));

        // IPv6: 3000 octets to ff02::1 (RFC 4443 §2.4 (e.3): packet too big also about multicast).
        byte[] v6 = pattern(3000, 10);
        MemorySegment s6 = MemorySegment.ofArray(v6);
        ipoib.codec.ip.Ipv6Header.write(s6, 0, 2960, 17, 64, 0xfd00_0009_0000_0000L, 1, 0xff02_0000_0000_0000L, 1);
        assertEquals(TransmitResult.DROPPED_TOO_BIG, a.sendBroadcast(EtherType.IPV6, s6));
        until("the ICMPv6 error", () -> ipFrames.size() == 2);
        byte[] ptb = ipFrames.get(1);
        assertEquals(1280, ptb.length, "as much of the packet as fits the IPv6 minimum MTU (RFC 4443 §3.1)");
        assertEquals(58, ptb[6], "next header ICMPv6");
        assertArrayEquals(java.util.Arrays.copyOfRange(v6, 8, 24), java.util.Arrays.copyOfRange(ptb, 8, 24), "source");
        assertArrayEquals(java.util.Arrays.copyOfRange(v6, 8, 24), java.util.Arrays.copyOfRange(ptb, 24, 40),
                "to the packet's source");
        assertEquals(2, ptb[40], "packet too big");
        assertEquals(0, ptb[41]);
        assertEquals(2044, java.nio.ByteBuffer.wrap(ptb).getInt(44), "the UD MTU");
        long pseudo = onesComplementSum(ptb, 8, 40, 0) + (1280 - 40) + 58;
        assertEquals(0xFFFF, onesComplementSum(ptb, 40, 1280, pseudo), "ICMPv6 checksum with the pseudo-header");
        assertArrayEquals(java.util.Arrays.copyOf(v6, 1232), java.util.Arrays.copyOfRange(ptb, 48, 1280));
        assertEquals(2, a.connectedMode().tooBigNotices.sum());

        // No error about an ICMP error, and none in datagram mode (the MTU is the UD MTU there).
        assertEquals(TransmitResult.DROPPED_TOO_BIG, a.sendUnicast(ab, b.address(), EtherType.IPV4,
                MemorySegment.ofArray(java.util.Arrays.copyOf(icmp, 3000))));
        a.setConnectedMode(false);
        loop.runPending();
        assertEquals(TransmitResult.DROPPED_TOO_BIG, a.sendUnicast(ab, b.address(), EtherType.IPV4, s4));
        loop.runPending();
        assertEquals(2, ipFrames.size());
    }

    /**
     * The loopback provider as one that does not override {@code Port.cmTransport()}, as the
     * hardware provider does not: every call goes to the real objects except the interfaces'
     * default methods, which run as declared.
     */
    @SuppressWarnings("unchecked")
    static <T> T withoutCm(Class<T> type, T real) {
        return (T) java.lang.reflect.Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, (p, m, args) -> {
            if (m.isDefault()) {
                return java.lang.reflect.InvocationHandler.invokeDefault(p, m, args);
            }
            Object answer;
            try {
                answer = m.invoke(real, args);
            } catch (java.lang.reflect.InvocationTargetException e) {
                throw e.getCause();
            }
            if (m.getName().equals("devices")) {
                return ((List<ipoib.api.verbs.Device>) answer).stream()
                        .map(d -> withoutCm(ipoib.api.verbs.Device.class, d)).toList();
            }
            if (m.getName().equals("ports")) {
                return ((List<ipoib.api.verbs.Port>) answer).stream()
                        .map(port -> withoutCm(ipoib.api.verbs.Port.class, port)).toList();
            }
            return answer;
        });
    }

    @Test
    void aProviderWithoutCmMadsKeepsTheInterfaceInDatagramModeAndSaysWhy() throws Exception {
        a = fixture.engine(LinkFixture.config("a", "loop0"));
        a.setConnectedMode(true);
        a.providerAvailable(withoutCm(ipoib.api.verbs.VerbsProvider.class, subnet));
        until("a UP", () -> a.state() == LinkState.UP);
        assertEquals(2044, a.mtu());
        assertEquals(0, a.address().flags(), "no RC flag: nothing is announced that is not implemented");
        assertEquals("datagram (connected mode asked for: device loop0 port 1: this provider does not offer the "
                + "communication-management class (CM MADs))", a.mode());
        assertTrue(log.contains("WARN a: stays in datagram mode: device loop0 port 1: this provider does not offer the "
                + "communication-management class (CM MADs)"), log.toString());
        assertNull(a.connectedMode());
    }

    @Test
    void theModeSwitchesAtRuntimeBothWays() throws Exception {
        a = up("a", "loop0", false);
        assertEquals("datagram", a.mode());
        assertEquals(2044, a.mtu());
        var qpn = a.qpn();
        a.setConnectedMode(true);
        loop.runPending();
        assertEquals("connected", a.mode());
        assertEquals(65520, a.mtu());
        assertEquals(new LinkAddress(0x80, qpn, a.gid()), a.address(), "same QPN: the interface kept running");
        a.setConnectedMode(false);
        loop.runPending();
        assertEquals("datagram", a.mode());
        assertEquals(LinkAddress.of(qpn, a.gid()), a.address());
        assertEquals(2044, a.mtu());
    }
}
