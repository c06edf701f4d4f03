package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.PKey;
import org.junit.jupiter.api.Test;

/**
 * A configuration built in plain Java (tests, benchmarks) is refused like one from Configuration
 * Admin: the property, the value and what is allowed, with the ranges the user sees in the
 * metatype (the configuration form and the descriptions: port 1..254, queue depths 1..8192, join
 * timeout 10..60000 ms, retry count 1..100, transmit timeout 10..60000 ms).
 */
class LinkConfigTest {

    static LinkConfig with(int port, int sq, int rq, int joinTimeout, int retries, int txTimeout) {
        return new LinkConfig("ib0", "loop0", port, PKey.DEFAULT, 2, false, sq, rq, joinTimeout, retries, txTimeout, true);
    }

    static String refusal(Runnable build) {
        return assertThrows(IllegalArgumentException.class, build::run).getMessage();
    }

    @Test
    void theDefaultsAreTheComponentsDefaults() {
        LinkConfig c = LinkConfig.of("ib0", "loop0", 1, PKey.DEFAULT);
        assertEquals(with(1, 128, 256, 1000, 5, 5000), c);
        assertEquals(64, c.withQueueDepths(64, 32).sendQueueDepth());
        assertEquals(32, c.withQueueDepths(64, 32).receiveQueueDepth());
    }

    @Test
    void everyNumberOutsideItsRangeIsRefusedWithPropertyValueAndRange() {
        assertEquals("invalid ipoib.link property 'port' value 255 is out of range: allowed 1..254",
                refusal(() -> with(255, 128, 256, 1000, 5, 5000)));
        assertEquals("invalid ipoib.link property 'sendQueueDepth' value 0 is out of range: allowed 1..8192",
                refusal(() -> with(1, 0, 256, 1000, 5, 5000)));
        assertEquals("invalid ipoib.link property 'receiveQueueDepth' value 8193 is out of range: allowed 1..8192",
                refusal(() -> with(1, 128, 8193, 1000, 5, 5000)));
        assertEquals("invalid ipoib.link property 'mcastJoinTimeoutMillis' value 9 is out of range: allowed 10..60000",
                refusal(() -> with(1, 128, 256, 9, 5, 5000)));
        assertEquals("invalid ipoib.link property 'mcastRetryCount' value 101 is out of range: allowed 1..100",
                refusal(() -> with(1, 128, 256, 1000, 101, 5000)));
        assertEquals("invalid ipoib.link property 'transmitTimeoutMillis' value 60001 is out of range: allowed 10..60000",
                refusal(() -> with(1, 128, 256, 1000, 5, 60001)));
    }

    @Test
    void aBadNameScopeOrDeviceIsRefused() {
        assertEquals("invalid ipoib interface property 'name' value 'ib 0': allowed 1..32 characters of A-Z a-z 0-9 _ . -",
                refusal(() -> LinkConfig.of("ib 0", "loop0", 1, PKey.DEFAULT)));
        assertEquals("invalid ipoib interface property 'device' value '': a device name is required: allowed an HCA name such as loop0",
                refusal(() -> LinkConfig.of("ib0", " ", 1, PKey.DEFAULT)));
        assertEquals("invalid ipoib interface property 'scope' value 16: allowed 1..15 (2 = link-local) or 'search'",
                refusal(() -> new LinkConfig("ib0", "loop0", 1, PKey.DEFAULT, 16, false, 1, 1, 10, 1, 10, true)));
    }
}
