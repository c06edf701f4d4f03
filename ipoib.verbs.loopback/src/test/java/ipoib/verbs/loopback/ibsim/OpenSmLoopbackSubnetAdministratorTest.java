package ipoib.verbs.loopback.ibsim;

import ipoib.satest.SaHost;
import ipoib.satest.SubnetAdministratorContract;
import ipoib.verbs.loopback.fabric.LoopDevice;
import ipoib.verbs.loopback.fabric.LoopPortSaHost;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shared SA suite against Debian's OpenSM managing the loopback fabric (sm=external): the
 * ports' SA clients send their MADs through the management plane to OpenSM, which attached
 * through ibsim's protocol under umad2sim, and take its answers, RMPP segments and Reports the
 * same way. The same expectations as against the emulated SA and against OpenSM on ibsim.
 */
class OpenSmLoopbackSubnetAdministratorTest extends SubnetAdministratorContract {
    private OpenSmOnLoopback subnet;
    private List<SaHost> hosts;

    @BeforeAll
    void startSubnet(@TempDir Path dir) throws Exception {
        // The contract's subnet: its partitions, LMC 1 (OpenSM's -l), trusted clients (OpenSM's
        // default SM_Key 1); -s 0: no periodic sweep, the contract changes nothing OpenSM sweeps.
        subnet = OpenSmOnLoopback.start(dir, OpenSmOnLoopbackTest.TWO_SWITCHES, String.join("\n", PARTITIONS) + "\n",
                TRUSTED_SM_KEY, List.of("-l", Integer.toString(LMC), "-s", "0"));
        hosts = subnet.subnet.fabric().devices().stream().map(LoopDevice::loopPorts)
                .map(ports -> (SaHost) new LoopPortSaHost(ports.get(0))).toList();
    }

    @AfterAll
    void stopSubnet() {
        if (subnet != null) {
            subnet.close();
        }
    }

    @Override
    protected SaHost host(int index) {
        return hosts.get(index);
    }
}
