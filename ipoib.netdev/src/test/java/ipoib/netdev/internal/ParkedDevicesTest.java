package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

class ParkedDevicesTest {
    @Test
    void aParkedDeviceIsTakenBackOnceWithEverythingItKept() {
        ParkedDevices.Parked kept = new ParkedDevices.Parked(37, "h1", "ib0", true, "ib0_1_ffff",
                List.of("fe80::202:c903:0:101", "10.0.0.1"));
        ParkedDevices.park("ipoib.netdev~test-a", kept);
        assertTrue(ParkedDevices.namespaces(null).contains("h1"));
        assertFalse(ParkedDevices.namespaces("ipoib.netdev~test-a").contains("h1"));
        assertEquals(kept, ParkedDevices.all().get("ipoib.netdev~test-a"));
        assertEquals(kept, ParkedDevices.take("ipoib.netdev~test-a"));
        assertNull(ParkedDevices.take("ipoib.netdev~test-a"));
        assertFalse(ParkedDevices.all().containsKey("ipoib.netdev~test-a"));
    }

    @Test
    void aDeviceInTheAppliancesOwnNamespaceWithoutStackAddresses() {
        ParkedDevices.Parked kept = new ParkedDevices.Parked(5, "", "ib1_1_ffff", false, "ib1_1_ffff", List.of());
        ParkedDevices.park("ipoib.netdev~test-b", kept);
        ParkedDevices.Parked back = ParkedDevices.take("ipoib.netdev~test-b");
        assertEquals(kept, back);
        assertNull(back.namespace());
    }
}
