package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.HostRoute;
import java.net.InetAddress;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * {@code ipoib:ping} through Gogo's own command processor, on a manual clock: requests leave at
 * the interval whether or not earlier ones were answered (80 probes at {@code -i 0.01 -W 5}
 * must not take 400 s by waiting for each reply), replies are matched by
 * sequence number, and IPv6 shows the hop limit as {@code hlim=}.
 */
class PingCommandTest {
    static final HostRoute V4 = new HostRoute("a", InetAddress.ofLiteral("10.0.0.1"), InetAddress.ofLiteral("10.0.0.2"),
            2044);
    static final HostRoute V6 = new HostRoute("a", InetAddress.ofLiteral("fd00::1"), InetAddress.ofLiteral("fd00::2"),
            2044);

    ManualPingHost host;
    GogoRunner gogo;

    CommandContext context;

    void start(HostRoute route) {
        host = new ManualPingHost(route);
        context = new CommandContext();
        context.links.add(new IpStackTest.Link("a"));
        gogo = new GogoRunner("ipoib", "ping", new PingCommand(host, context, host.clock, host.waiter()));
    }

    @AfterEach
    void stop() {
        gogo.close();
    }

    @Test
    void eightyProbesAtTenMillisecondsLeaveAtTheIntervalAndTheRunEndsOneTimeoutAfterTheLast() {
        start(V4);
        GogoRunner.Result r = gogo.run("ipoib:ping -c 80 -i 0.01 -W 5 10.0.0.2");
        assertEquals(80, host.sentAtNanos.size());
        for (int k = 0; k < 80; k++) {
            assertEquals(TimeUnit.MILLISECONDS.toNanos(10) * k, host.sentAtNanos.get(k), "request " + (k + 1)
                    + " leaves at its interval, not after the previous reply's timeout");
            assertEquals(k + 1, host.sequences.get(k));
        }
        assertNotNull(r.error(), "no reply: the command fails like the system ping");
        assertTrue(r.console().contains("80 packets transmitted, 0 received, 100% packet loss"), r.console());
        long elapsed = host.clock.nanoTime();
        assertEquals(TimeUnit.MILLISECONDS.toNanos(790) + TimeUnit.SECONDS.toNanos(5), elapsed,
                "the last request's timeout ends the run (not 80 x 5 s)");
        assertEquals(1, host.routeLookups, "one routing decision for the whole run");
    }

    @Test
    void onABridgedInterfaceItSaysTheKernelOwnsEchoThereAndWhatToRunInstead() {
        start(V4);
        context.bridged.add(new CommandContext.Bridged(7L, "a", "ib0", "h1"));
        GogoRunner.Result r = gogo.run("ipoib:ping -c 3 10.0.0.2");
        assertNotNull(r.error(), r.console());
        String message = r.error().getMessage();
        assertTrue(message.contains("interface a is bridged to the Linux device ib0 in network namespace h1"), message);
        assertTrue(message.contains("the kernel owns its addresses and answers echo there"), message);
        assertTrue(message.endsWith("ip netns exec h1 ping 10.0.0.2"), message);
        assertEquals(0, host.sentAtNanos.size(), "no request sent for replies nobody here would see");
    }

    @Test
    void repliesOutOfOrderAreMatchedBySequenceNumber() {
        start(V4);
        host.answer(1, 250);
        host.answer(2, 30);
        host.answer(4, 5);
        GogoRunner.Result r = gogo.run("ipoib:ping -c 4 -i 0.1 -W 1 10.0.0.2");
        assertNull(r.error(), r.console());
        String out = r.console() + r.value();
        assertTrue(out.startsWith("PING 10.0.0.2 from 10.0.0.1 a: 56(84) bytes of data.\n"), out);
        Matcher m = Pattern.compile("64 bytes from 10\\.0\\.0\\.2: icmp_seq=(\\d+) ttl=64 time=(\\d+\\.\\d{3}) ms")
                .matcher(out);
        StringBuilder order = new StringBuilder();
        while (m.find()) {
            order.append(m.group(1)).append('@').append(m.group(2)).append(' ');
        }
        // Sent at 0, 100, 200, 300 ms: seq 2 answered at 130, seq 1 at 250, seq 4 at 305; seq 3 lost.
        assertEquals("2@30.000 1@250.000 4@5.000 ", order.toString());
        assertTrue(out.contains("4 packets transmitted, 3 received, 25% packet loss"), out);
        assertTrue(out.contains("rtt min/avg/max/mdev = 5.000/95.000/250.000/"), out);
    }

    @Test
    void ipv6RepliesShowTheHopLimit() {
        start(V6);
        host.ttl = 255;
        host.answer(1, 1);
        GogoRunner.Result r = gogo.run("ipoib:ping -c 1 fd00::2");
        assertNull(r.error(), r.console());
        assertTrue(r.console().contains("PING fd00::2 from fd00::1 a: 56(104) bytes of data."), r.console());
        assertTrue(r.console().contains("64 bytes from fd00::2: icmp_seq=1 hlim=255 time=1.000 ms"), r.console());
        assertTrue(!r.console().contains("ttl="), r.console());
    }

    @Test
    void gogoParsesTheOptionsAndBadValuesGetTheUsage() {
        start(V4);
        String[][] cases = {
                {"ipoib:ping", "no destination address"},
                {"ipoib:ping -c x 10.0.0.2", "option -c value 'x' is not a number"},
                {"ipoib:ping -c 0 10.0.0.2", "option -c value 0 outside 1..100000"},
                {"ipoib:ping -c 1.5 10.0.0.2", "option -c value 1.5 is not a whole number"},
                {"ipoib:ping -i 0.001 10.0.0.2", "option -i value 0.001 outside 0.01..60"},
                {"ipoib:ping -I nosuch 10.0.0.2", "no interface 'nosuch' (interfaces: a)"},
                {"ipoib:ping -q 10.0.0.2", "unknown option '-q'"},
                {"ipoib:ping 10.0.0.2 10.0.0.3", "unexpected argument '10.0.0.3'"},
                {"ipoib:ping 10.1.0", "invalid address '10.1.0'"},
                {"ipoib:ping -I a 'fe80::2%b'", "-I a and %b name different interfaces"},
        };
        for (String[] c : cases) {
            GogoRunner.Result r = gogo.run(c[0]);
            assertInstanceOf(IllegalArgumentException.class, r.error(), c[0]);
            assertTrue(r.error().getMessage().contains(c[1]), c[0] + ": " + r.error().getMessage());
            assertTrue(r.error().getMessage().contains("usage: ipoib:ping"), c[0] + ": " + r.error().getMessage());
        }
        assertEquals(0, host.sentAtNanos.size(), "nothing was sent for a bad command");
    }
}
