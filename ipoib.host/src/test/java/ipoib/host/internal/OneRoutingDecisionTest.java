package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.AddressState;
import ipoib.api.host.EchoReply;
import ipoib.api.link.EtherType;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.TransmitResult;
import ipoib.runtime.Clock;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * One routing decision per datagram: the engine's route lookup is wrapped in a
 * counter, and pings run over two fake links joined by a resolver that carries each packet to
 * the other link's receive path (request there, reply back).
 */
class OneRoutingDecisionTest {
    final AtomicInteger lookups = new AtomicInteger();
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, message -> { }, router -> (link, destination) -> {
        lookups.incrementAndGet();
        return router.route(link, destination);
    });
    final IpStackTest.Link a = new IpStackTest.Link("a");
    final IpStackTest.Link b = new IpStackTest.Link("b");

    /** Carries a unicast packet to the other link's handler of its family (a copy: the sender's buffer is reused). */
    final class Wire extends IpStackTest.Resolver {
        @Override
        public TransmitResult send(IpoibLink from, long high, long low, int etherType, MemorySegment packet) {
            IpoibLink to = from == a ? b : a;
            IpStackTest.Frame frame = new IpStackTest.Frame(packet.toArray(ValueLayout.JAVA_BYTE), etherType);
            (etherType == EtherType.IPV6 ? stack.ipv6Handler() : stack.ipv4Handler()).onFrame(to, frame);
            return TransmitResult.SENT;
        }
    }

    OneRoutingDecisionTest() throws Exception {
        stack.addLink(a);
        stack.addLink(b);
        Wire wire = new Wire();
        stack.resolver(false, wire);
        stack.resolver(true, wire);
        table.add("a", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        table.add("b", InetAddress.getByName("10.0.0.2"), 24, AddressOrigin.MANUAL, null);
        table.add("a", InetAddress.getByName("fd00::1"), 64, AddressOrigin.MANUAL, null);
        table.add("b", InetAddress.getByName("fd00::2"), 64, AddressOrigin.MANUAL, null);
        table.setState("a", InetAddress.getByName("fd00::1"), AddressState.PREFERRED);
        table.setState("b", InetAddress.getByName("fd00::2"), AddressState.PREFERRED);
    }

    @Test
    void anEchoRequestAndItsReplyPassOneRoutingDecision() throws Exception {
        for (String destination : new String[] {"10.0.0.2", "fd00::2"}) {
            lookups.set(0);
            CompletableFuture<EchoReply> reply = stack.echo(null, InetAddress.getByName(destination), 5, 1, 8,
                    Duration.ofSeconds(5));
            assertEquals(InetAddress.getByName(destination), reply.get(5, TimeUnit.SECONDS).from());
            assertEquals(1, lookups.get(), destination + ": the request is routed once, the reply retraces it");
        }
    }

    @Test
    void aPingRunRoutesOnceForAllItsRequests() {
        CommandContext context = new CommandContext();
        context.links.add(a);
        context.links.add(b);
        // Real clock and waiting: the replies come back within the send call, so nothing is waited for but -i.
        try (GogoRunner gogo = new GogoRunner("ipoib", "ping", new PingCommand(stack, context, Clock.SYSTEM,
                PingRun.Waiter.REAL))) {
            for (String destination : new String[] {"10.0.0.2", "fd00::2"}) {
                lookups.set(0);
                GogoRunner.Result r = gogo.run("ipoib:ping -c 3 -i 0.01 " + destination);
                assertNull(r.error(), r.console());
                assertTrue(String.valueOf(r.value()).contains("3 packets transmitted, 3 received, 0% packet loss"),
                        r.console() + r.value());
                assertEquals(3, r.console().split("icmp_seq=").length - 1, r.console());
                assertEquals(1, lookups.get(), destination + ": one routing decision for three requests");
            }
        }
        assertEquals(6, stack.counters().get("echo_replies_received"));
        assertEquals(6, stack.counters().get("echo_replies_sent"));
    }
}
