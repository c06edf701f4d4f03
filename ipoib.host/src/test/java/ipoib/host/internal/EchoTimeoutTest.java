package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.EchoReply;
import ipoib.api.host.HostException;
import ipoib.api.link.EtherType;
import ipoib.runtime.ManualControlLoop;
import java.net.InetAddress;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Echo timeouts and round-trip times on the host's control loop, here a manual one: no real waiting. */
class EchoTimeoutTest {
    final ManualControlLoop loop = new ManualControlLoop();
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, message -> { }, loop);
    final IpStackTest.Link a = new IpStackTest.Link("a");
    final IpStackTest.Link b = new IpStackTest.Link("b");
    final IpStackTest.Resolver resolver = new IpStackTest.Resolver();

    @BeforeEach
    void setUp() throws Exception {
        stack.addLink(a);
        stack.addLink(b);
        stack.resolver(false, resolver);
        table.add("a", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
        table.add("b", InetAddress.getByName("10.0.0.2"), 24, AddressOrigin.MANUAL, null);
    }

    @AfterEach
    void stop() {
        stack.close();
        loop.close();
    }

    private CompletableFuture<EchoReply> ping(int sequence, Duration timeout) throws Exception {
        return stack.echo(null, InetAddress.getByName("10.0.0.2"), 7, sequence, 8, timeout);
    }

    @Test
    void aRequestWithoutAReplyTimesOutWhenTheLoopsClockPassesItsTimeout() throws Exception {
        CompletableFuture<EchoReply> reply = ping(1, Duration.ofSeconds(2));
        loop.advance(1999, TimeUnit.MILLISECONDS);
        assertFalse(reply.isDone(), "still waiting 1 ms before its timeout");
        loop.advance(1, TimeUnit.MILLISECONDS);
        assertTrue(reply.isCompletedExceptionally());
        Throwable why = assertThrows(java.util.concurrent.CompletionException.class, () -> reply.join()).getCause();
        assertInstanceOf(TimeoutException.class, why);
        assertEquals("no echo reply within 2000 ms", why.getMessage());
    }

    @Test
    void aReplyCarriesTheRoundTripOnTheLoopsClockAndCallsItsTimerOff() throws Exception {
        CompletableFuture<EchoReply> reply = ping(2, Duration.ofSeconds(5));
        assertEquals(1, loop.scheduled(), "the request's timeout");
        IpStackTest.Resolver.Sent request = resolver.sent.remove(0);
        loop.advance(300, TimeUnit.MILLISECONDS);
        stack.ipv4Handler().onFrame(b, new IpStackTest.Frame(request.packet(), EtherType.IPV4));
        IpStackTest.Resolver.Sent answer = resolver.sent.remove(0);
        stack.ipv4Handler().onFrame(a, new IpStackTest.Frame(answer.packet(), EtherType.IPV4));
        assertEquals(Duration.ofMillis(300), reply.getNow(null).roundTrip());
        assertEquals(0, loop.scheduled(), "the timeout is called off");
        loop.advance(10, TimeUnit.SECONDS);
        assertFalse(reply.isCompletedExceptionally());
    }

    @Test
    void aRequestSentAfterTheLoopClosedFailsAtOnceInsteadOfWaitingForever() throws Exception {
        loop.close();
        CompletableFuture<EchoReply> reply = ping(3, Duration.ofSeconds(5));
        Throwable why = assertThrows(java.util.concurrent.CompletionException.class, () -> reply.join()).getCause();
        assertInstanceOf(HostException.class, why);
        assertEquals("the host layer stopped", why.getMessage());
    }
}
