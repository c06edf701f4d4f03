package ipoib.verbs.loopback.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Rate;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A fabric configuration is refused whole when a partition member names no port of the topology. */
class FabricConfigTest {

    private static FabricConfig withPartition(String line) {
        return new FabricConfig(2, 1, Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0000L, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse(line)), 1);
    }

    @Test
    void aMemberNamingNoHcaIsRefusedWithTheAllowedForms() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> withPartition("Default=0x7fff, ipoib : loop99=full ;"));
        assertEquals("invalid loopback property 'partitions': member 'loop99' of partition Default names no port: "
                + "allowed ALL, ALL_CAS, loop0..loop1, loopN/1..1 or the GUID of one of those ports", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> withPartition("Default=0x7fff : loop1/2=full ;"));
        assertThrows(IllegalArgumentException.class, () -> withPartition("Default=0x7fff : 0x0002c90300000999=full ;"));
    }

    @Test
    void membersNamingExistingPortsAreAccepted() {
        // Port 1 of HCA 1: node GUID base + 2 * 0x100, port GUID node + 1 (Fabric's numbering).
        FabricConfig c = withPartition("Default=0x7fff : loop0=full, loop1/1=limited, 0x0002c90300000201=full ;");
        assertEquals(3, c.partitions().get(0).members().size());
    }

    private static FabricConfig twoSwitches(String line) {
        return new FabricConfig(2, 1, Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0000L, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, List.of(PartitionConfig.parse(line)), 1, 0,
                SwitchedFabricTest.example("two-switches.net").toString());
    }

    @Test
    void aTopologyFileGivesTheHcasAndThePortGuidsMembersName() {
        // The file's third HCA (hca2) is loop2; ibsim numbers HCA GUIDs from 0x100000, node then port 1.
        FabricConfig c = twoSwitches("Default=0x7fff : loop3=full, 0x0000000000100005=limited ;");
        assertEquals(4, c.hcas());
        assertEquals(1, c.portsPerHca());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> twoSwitches("Default=0x7fff : loop4=full ;"));
        assertEquals("invalid loopback property 'partitions': member 'loop4' of partition Default names no port: "
                + "allowed ALL, ALL_CAS, loop0..loop3, loopN/1..1 or the GUID of one of those ports", e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> twoSwitches("Default=0x7fff : 0x0002c90300000101=full ;"));
    }

    @Test
    void aTopologyFileThatDoesNotParseIsRefusedNamingThePropertyAndTheLine() throws Exception {
        java.nio.file.Path bad = java.nio.file.Files.createTempFile("bad", ".net");
        try {
            java.nio.file.Files.writeString(bad, "Switch 8 \"sw1\"\n[1] \"nowhere\"[1]\n");
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> new FabricConfig(2, 1, Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0000L, IbMtu.MTU_2048,
                            Rate.RATE_10_GBPS, FabricConfig.defaults().partitions(), 1, 0, bad.toString()));
            assertEquals(true, e.getMessage().startsWith("invalid loopback property 'topology' value '" + bad + "': "),
                    e.getMessage());
        } finally {
            java.nio.file.Files.delete(bad);
        }
    }
}
