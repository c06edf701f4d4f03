package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressVector;
import org.junit.jupiter.api.Test;

/**
 * LID mask control (IBA 7.11.1) in the loopback fabric: a port answers to 2^LMC LIDs from a base
 * LID aligned to 2^LMC, as OpenSM assigns them with {@code -l}; frames to any of them arrive.
 */
class LidMaskControlTest {
    private static FabricConfig config(int lmc) {
        FabricConfig d = FabricConfig.defaults();
        return new FabricConfig(3, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048, Rate.RATE_10_GBPS,
                d.partitions(), 1, lmc);
    }

    @Test
    void baseLidsAreAlignedAndEveryLidOfARangeReachesThePort() throws Exception {
        try (Fabric f = new Fabric(config(2))) {
            f.start();
            LoopPort a = f.devices().get(0).loopPorts().get(0);
            LoopPort b = f.devices().get(1).loopPorts().get(0);
            assertEquals(4, a.lidValue(), "the first base LID at or above 2 that is a multiple of 4");
            assertEquals(8, b.lidValue());
            assertEquals(2, b.attributes().lmc());
            for (int l = 8; l < 12; l++) {
                assertEquals(b, f.subnetManager().portByLid(l), "LID " + l);
            }
            assertEquals(a, f.subnetManager().portByLid(7), "the last LID of a's range");
            assertEquals(null, f.subnetManager().portByLid(3), "below the first aligned base");
            try (Endpoint from = new Endpoint(a, PKey.of(0xffff), QKey.of(0x0b1b), 0);
                 Endpoint to = new Endpoint(b, PKey.of(0xffff), QKey.of(0x0b1b), 4)) {
                assertTrue(from.send(a.createAddressHandle(AddressVector.local(Lid.of(b.lidValue() + 3), 0)),
                        to.qp.qpn(), QKey.of(0x0b1b), 64, (byte) 5));
                assertEquals(1, to.poll(), "a frame to the last LID of b's range arrives at b");
            }
        }
    }

    @Test
    void aLidOutsideTheLmcRangeIsRefusedNamingTheProperty() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> config(8));
        assertEquals("invalid loopback property 'lmc' value 8: allowed 0..7", e.getMessage());
    }

    @Test
    void aBaseLidThatIsNotAMultipleOfTwoToTheLmcIsRefused() {
        try (Fabric f = new Fabric(config(1))) {
            f.start();
            LoopPort a = f.devices().get(0).loopPorts().get(0);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> f.changeLid(a, 7));
            assertTrue(e.getMessage().contains("with LMC 1 a base LID is a multiple of 2"), e.getMessage());
        }
    }
}
