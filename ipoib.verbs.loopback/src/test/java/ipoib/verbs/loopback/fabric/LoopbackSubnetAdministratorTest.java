package ipoib.verbs.loopback.fabric;

import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.satest.SaHost;
import ipoib.satest.SubnetAdministratorContract;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The shared SA suite against the loopback SA emulation: the same expectations the OpenSM test
 * in ipoib.verbs.fabric checks against OpenSM 3.3 on ibsim.
 */
class LoopbackSubnetAdministratorTest extends SubnetAdministratorContract {
    private LoopbackSubnet subnet;
    private List<SaHost> hosts;

    @BeforeAll
    void startSubnet() {
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(3, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, PARTITIONS.stream().map(PartitionConfig::parse).toList(), 3, LMC), 300, 3,
                TRUSTED_SM_KEY);
        hosts = subnet.fabric().devices().stream().map(dev -> (SaHost) new LoopPortSaHost(dev.loopPorts().get(0))).toList();
    }

    @AfterAll
    void stopSubnet() {
        subnet.close();
    }

    @Override
    protected SaHost host(int index) {
        return hosts.get(index);
    }

    @Override
    protected int capabilityMaskNotAdvertised() {
        return SubnetAdministratorEmulator.CAPABILITY_MASK_NOT_ADVERTISED;
    }

    @Override
    protected int capabilityMask2NotAdvertised() {
        return SubnetAdministratorEmulator.CAPABILITY_MASK2_NOT_ADVERTISED;
    }
}
