package ipoib.verbs.loopback.ibsim;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.sa.SubnetAdministrator;
import ipoib.codec.mad.SaAttribute;
import ipoib.sa.SaClient;
import ipoib.satest.SaHost;
import ipoib.satest.SubnetAdministratorContract;
import ipoib.verbs.loopback.fabric.LoopDevice;
import ipoib.verbs.loopback.fabric.LoopPort;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletionStage;
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
                .map(ports -> (SaHost) new Host(ports.get(0))).toList();
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

    /** An HCA port of the loopback fabric and its SA client, whose MADs go to OpenSM. */
    private record Host(LoopPort port) implements SaHost {
        @Override
        public String name() {
            return port.toString();
        }

        @Override
        public Gid portGid() {
            return port.gid(0);
        }

        @Override
        public Lid lid() {
            return port.attributes().lid();
        }

        @Override
        public SubnetAdministrator sa() {
            return port.subnetAdministrator();
        }

        @Override
        public SubnetAdministrator sa(long smKey) {
            return ((SaClient) port.subnetAdministrator()).withSmKey(smKey);
        }

        @Override
        public <R> CompletionStage<List<R>> records(SaAttribute<R> attribute, boolean table, R query, long mask) {
            return ((SaClient) port.subnetAdministrator()).records(attribute, table, query, mask);
        }
    }
}
