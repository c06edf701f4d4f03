package ipoib.link.internal.commands;

import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.link.internal.ReceiveBufferDrops;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code ipoib:stats} shows the receiving port's no-receive-buffer drops under each interface on the port. */
class PortDropStatsTest {
    @Test
    void statsShowTheReceivingPortsNoReceiveBufferDrops() {
        try (ReceiveBufferDrops fabric = new ReceiveBufferDrops(2)) {
            String stats = new LinkReport(List.of(fabric.linkOnTheReceivingPort("ib1_1_ffff")), Map.of()).stats();
            assertTrue(stats.contains("    port loop1/1 rx_dropped_no_receive_buffer 2\n"), stats);
        }
    }
}
