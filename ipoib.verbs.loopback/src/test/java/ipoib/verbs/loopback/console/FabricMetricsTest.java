package ipoib.verbs.loopback.console;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.runtime.IbPortCounter;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FabricMetricsTest {

    @Test
    void anSaStatusIsALabelByItsIbaNameOrItsNumber() {
        assertEquals("success", FabricMetrics.statusLabel(0x0000));
        assertEquals("no_records", FabricMetrics.statusLabel(0x0300)); // IBA 15.2.1.3: ERR_NO_RECORDS
        assertEquals("0x7f00", FabricMetrics.statusLabel(0x7f00));
    }

    @Test
    void everyIbPortCounterHasItsOwnLoopbackCounter() {
        Set<ipoib.verbs.loopback.subnet.PortCounter> used = EnumSet.noneOf(ipoib.verbs.loopback.subnet.PortCounter.class);
        for (IbPortCounter k : IbPortCounter.values()) {
            used.add(FabricMetrics.of(k));
        }
        assertEquals(IbPortCounter.values().length, used.size());
    }
}
