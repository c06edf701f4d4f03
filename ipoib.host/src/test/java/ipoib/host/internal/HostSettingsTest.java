package ipoib.host.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.host.AddressOrigin;
import ipoib.codec.ip.Ipv4Header;
import java.lang.foreign.MemorySegment;
import java.net.InetAddress;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Configuration {@code ipoib.host}: every property is checked against its
 * declaration before anything applies; what is refused names the property, the value and what
 * is allowed, and what runs (the TTL of the packets sent) stays as it was.
 */
class HostSettingsTest {
    final AddressTable table = new AddressTable((a, c) -> { });
    final IpStack stack = new IpStack(table, m -> { });
    final IpStackTest.Resolver resolver = new IpStackTest.Resolver();
    final List<String> errors = new ArrayList<>();
    final HostSettings settings = new HostSettings(stack, (properties, why) -> errors.add(why));

    HostSettingsTest() throws Exception {
        stack.addLink(new IpStackTest.Link("a"));
        stack.resolver(false, resolver);
        table.add("a", InetAddress.getByName("10.0.0.1"), 24, AddressOrigin.MANUAL, null);
    }

    /** The TTL of an echo request the host sends now. */
    int sentTtl() throws Exception {
        stack.echo(null, InetAddress.getByName("10.0.0.2"), 1, resolver.sent.size(), 0, Duration.ofSeconds(1));
        byte[] p = resolver.sent.get(resolver.sent.size() - 1).packet();
        return Ipv4Header.ttl(MemorySegment.ofArray(p), 0);
    }

    @Test
    void aValidConfigurationApplies() throws Exception {
        assertTrue(settings.apply(Map.of("ttl", 5, "answerEcho", "false")));
        assertEquals(5, sentTtl());
        assertEquals("ttl=5 answerEcho=false echoIgnoreBroadcasts=true echoIgnoreMulticast6=false", settings.inForce());
        assertTrue(settings.apply(Map.of("ttl", "200")), "a number as text, as a configuration file has it");
        assertEquals(200, sentTtl());
        assertEquals("ttl=200 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false", settings.inForce(), "an absent property has its default");
        assertEquals(List.of(), errors);
    }

    @Test
    void aLongBeyondTwoToTheThirtySecondIsRefusedNotTruncated() throws Exception {
        assertFalse(settings.apply(Map.of("ttl", 4294967297L)));
        assertEquals(64, sentTtl(), "4294967297 truncated to int would be 1");
        assertEquals(List.of("invalid ipoib.host property 'ttl' value 4294967297 is out of range: allowed 1..255; "
                + "ipoib.host keeps ttl=64 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false"), errors);
    }

    @Test
    void aBooleanThatIsNoBooleanIsRefused() {
        settings.apply(Map.of("ttl", 9));
        assertFalse(settings.apply(Map.of("answerEcho", "nope")));
        assertEquals("ttl=9 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false", settings.inForce(), "the whole configuration is refused");
        assertEquals(List.of("invalid ipoib.host property 'answerEcho' value 'nope' is not a boolean: allowed true or "
                + "false; ipoib.host keeps ttl=9 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false"), errors);
    }

    @Test
    void textForANumberNamesTheProperty() {
        assertFalse(settings.apply(Map.of("ttl", "abc")));
        assertEquals(List.of("invalid ipoib.host property 'ttl' value 'abc' is not a number: allowed 1..255; "
                + "ipoib.host keeps ttl=64 answerEcho=true echoIgnoreBroadcasts=true echoIgnoreMulticast6=false"), errors);
        assertFalse(settings.apply(Map.of("ttl", 0)));
        assertTrue(errors.get(1).contains("'ttl' value 0 is out of range: allowed 1..255"), errors.get(1));
    }
}
