package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.verbs.PKeyTable;
import ipoib.api.verbs.PortState;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The emulated subnet manager's first sweep: a LID for every port, its P_Key table from the
 * partition configuration, the port ACTIVE, and the configured IPoIB broadcast groups.
 */
final class SubnetSweep {
    private final FabricConfig config;
    private final List<LoopDevice> devices;
    private final SubnetManager subnetManager;

    SubnetSweep(FabricConfig config, List<LoopDevice> devices, SubnetManager subnetManager) {
        this.config = config;
        this.devices = devices;
        this.subnetManager = subnetManager;
    }

    void run() {
        // With LMC > 0 a base LID is a multiple of 2^LMC (IBA 7.11.1), as OpenSM assigns them.
        int lids = 1 << config.lmc();
        int lid = (SubnetManager.FIRST_PORT_LID + lids - 1) / lids * lids;
        for (LoopDevice d : devices) {
            for (LoopPort p : d.loopPorts()) {
                subnetManager.assignLid(p, lid);
                lid += lids;
                p.setPKeys(pkeyTableFor(p));
                p.setState(PortState.ACTIVE);
            }
        }
        for (PartitionConfig partition : config.partitions()) {
            if (partition.ipoib()) {
                subnetManager.createPersistent(broadcastGroup(partition));
            }
        }
    }

    private PKeyTable pkeyTableFor(LoopPort port) {
        List<PKey> keys = new ArrayList<>();
        for (PartitionConfig partition : config.partitions()) {
            Optional<Boolean> full = membership(partition, port);
            full.ifPresent(f -> keys.add(PKey.of(partition.pkeyBase() | (f ? PKey.FULL_MEMBER_BIT : 0))));
        }
        return PKeyTable.of(keys);
    }

    /** The port's membership of a partition: full (true), limited (false) or none; full wins. */
    private static Optional<Boolean> membership(PartitionConfig partition, LoopPort port) {
        Optional<Boolean> result = Optional.empty();
        for (PartitionConfig.Member m : partition.members()) {
            if (m.matches(port.device.name(), port.number(), port.guid())) {
                if (m.full()) {
                    return Optional.of(true);
                }
                result = Optional.of(false);
            }
        }
        return result;
    }

    /** The broadcast group of an IPoIB partition (RFC 4391 §4): parameters from the partition line. */
    private static McMemberRecord broadcastGroup(PartitionConfig partition) {
        PKey pkey = PKey.of(partition.pkeyBase() | PKey.FULL_MEMBER_BIT);
        Mgid mgid = Mgid.of(0xFF10_401B_0000_0000L | (long) partition.scope() << 48 | (long) pkey.value() << 16,
                0x0000_0000_FFFF_FFFFL);
        return new McMemberRecord(mgid, Gid.ZERO, partition.qkey(), Lid.of(Lid.MULTICAST_BASE), partition.mtu(), 0,
                pkey, partition.rate(), SubnetManager.PACKET_LIFETIME, partition.serviceLevel(), 0, 0,
                JoinState.FULL_MEMBER, false);
    }
}
