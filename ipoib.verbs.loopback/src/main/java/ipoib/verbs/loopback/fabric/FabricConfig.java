package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.verbs.loopback.subnet.NetFile;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.SingleSwitchTopology;
import ipoib.verbs.loopback.subnet.Topology;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The topology of a loopback subnet: a net file, or N HCAs on one switch.
 *
 * @param hcas number of HCAs, 1..{@value #MAX_HCAS} (with a topology file: its HCAs)
 * @param portsPerHca ports on each HCA, 1..{@value #MAX_PORTS} (with a topology file: the most an HCA has)
 * @param subnetPrefix the subnet prefix of every port GID
 * @param nodeGuidBase node GUID of HCA i is base + (i+1)*0x100; its port p has GUID node + p
 * @param mtu the ports' active MTU
 * @param rate the ports' rate
 * @param partitions the partitions (at least one)
 * @param seed seed of every random choice (QPNs, faults), so a run can be replayed
 * @param lmc LID mask control, 0..{@value #MAX_LMC}: every port answers to 2^lmc LIDs from its
 *            (aligned) base LID, and the SA has that many paths per port pair (as OpenSM's {@code -l})
 * @param topology the path of a topology in ibsim's net-file format (HCAs, switches, cables), or
 *                 empty for {@code hcas} HCAs on one switch; the HCAs of the file in their order are
 *                 the devices loop0, loop1, ...
 */
public record FabricConfig(int hcas, int portsPerHca, long subnetPrefix, long nodeGuidBase, IbMtu mtu, Rate rate,
                           List<PartitionConfig> partitions, long seed, int lmc, String topology) {

    public static final int MAX_HCAS = 1024;
    public static final int MAX_PORTS = 4;
    /** The largest LMC (IBA 7.11.1: 3 bits). */
    public static final int MAX_LMC = 7;

    /** A topology with LMC 0: one LID per port. */
    public FabricConfig(int hcas, int portsPerHca, long subnetPrefix, long nodeGuidBase, IbMtu mtu, Rate rate,
                        List<PartitionConfig> partitions, long seed) {
        this(hcas, portsPerHca, subnetPrefix, nodeGuidBase, mtu, rate, partitions, seed, 0);
    }

    /** N HCAs on one switch. */
    public FabricConfig(int hcas, int portsPerHca, long subnetPrefix, long nodeGuidBase, IbMtu mtu, Rate rate,
                        List<PartitionConfig> partitions, long seed, int lmc) {
        this(hcas, portsPerHca, subnetPrefix, nodeGuidBase, mtu, rate, partitions, seed, lmc, "");
    }

    /**
     * @throws IllegalArgumentException naming the property, the value and the allowed range
     */
    public FabricConfig {
        topology = topology == null ? "" : topology.strip();
        List<HcaPorts> hcaPorts;
        if (!topology.isEmpty()) {
            hcaPorts = hcaPorts(readTopology(topology));
            if (hcaPorts.isEmpty() || hcaPorts.size() > MAX_HCAS) {
                throw new IllegalArgumentException("invalid loopback property 'topology' value '" + topology + "': it has "
                        + hcaPorts.size() + " HCAs, allowed 1.." + MAX_HCAS);
            }
            hcas = hcaPorts.size();
            portsPerHca = hcaPorts.stream().mapToInt(h -> h.portGuids().length).max().orElse(1);
        } else {
            hcaPorts = null;
        }
        if (hcas < 1 || hcas > MAX_HCAS) {
            throw new IllegalArgumentException("invalid loopback property 'hcas' value " + hcas + ": allowed 1.." + MAX_HCAS);
        }
        if (hcaPorts == null && (portsPerHca < 1 || portsPerHca > MAX_PORTS)) {
            throw new IllegalArgumentException("invalid loopback property 'portsPerHca' value " + portsPerHca
                    + ": allowed 1.." + MAX_PORTS);
        }
        if (lmc < 0 || lmc > MAX_LMC) {
            throw new IllegalArgumentException("invalid loopback property 'lmc' value " + lmc + ": allowed 0.." + MAX_LMC);
        }
        if (partitions == null || partitions.isEmpty()) {
            throw new IllegalArgumentException("invalid loopback property 'partitions': at least one partition is needed");
        }
        if ((subnetPrefix >>> 56) == 0xFF) {
            throw new IllegalArgumentException("invalid loopback property 'subnetPrefix' value "
                    + new Gid(subnetPrefix, 0) + ": a multicast prefix (ff..) cannot be a subnet prefix");
        }
        partitions = List.copyOf(partitions);
        if (hcaPorts == null) {
            hcaPorts = defaultHcaPorts(hcas, portsPerHca, nodeGuidBase);
        }
        for (PartitionConfig partition : partitions) {
            for (PartitionConfig.Member member : partition.members()) {
                if (!namesAPort(member, hcaPorts)) {
                    // A member naming nothing would silently leave ports out of the partition.
                    throw new IllegalArgumentException("invalid loopback property 'partitions': member '"
                            + member.selector() + "' of partition " + partition.name() + " names no port: allowed "
                            + "ALL, ALL_CAS, loop0..loop" + (hcas - 1) + ", loopN/1.." + portsPerHca
                            + " or the GUID of one of those ports");
                }
            }
        }
        for (int i = 0; i < partitions.size(); i++) {
            for (int j = i + 1; j < partitions.size(); j++) {
                if (partitions.get(i).pkeyBase() == partitions.get(j).pkeyBase()) {
                    throw new IllegalArgumentException(String.format(
                            "invalid loopback property 'partitions': P_Key 0x%04x is defined twice (%s, %s)",
                            partitions.get(i).pkeyBase(), partitions.get(i).name(), partitions.get(j).name()));
                }
            }
        }
    }

    /** The port GUIDs of one HCA, loop0 first. */
    private record HcaPorts(long[] portGuids) {}

    /** Whether a member selector matches at least one port of the topology. */
    private static boolean namesAPort(PartitionConfig.Member member, List<HcaPorts> hcas) {
        for (int i = 0; i < hcas.size(); i++) {
            long[] guids = hcas.get(i).portGuids();
            for (int p = 1; p <= guids.length; p++) {
                if (member.matches("loop" + i, p, ipoib.api.Guid.of(guids[p - 1]))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** The default topology's HCA ports: node GUID of HCA i is base + (i+1)*0x100, its port p's node + p. */
    private static List<HcaPorts> defaultHcaPorts(int hcas, int portsPerHca, long nodeGuidBase) {
        List<HcaPorts> out = new ArrayList<>();
        for (int i = 0; i < hcas; i++) {
            long[] guids = new long[portsPerHca];
            for (int p = 1; p <= portsPerHca; p++) {
                guids[p - 1] = nodeGuidBase + (long) (i + 1) * 0x100 + p;
            }
            out.add(new HcaPorts(guids));
        }
        return out;
    }

    private static List<HcaPorts> hcaPorts(Topology topology) {
        List<HcaPorts> out = new ArrayList<>();
        for (Node n : topology.nodes()) {
            if (!n.isSwitch()) {
                out.add(new HcaPorts(n.ports().stream().mapToLong(Port::guid).toArray()));
            }
        }
        return out;
    }

    private static Topology readTopology(String file) {
        try {
            return NetFile.read(Path.of(file));
        } catch (IOException | java.nio.file.InvalidPathException e) {
            throw new IllegalArgumentException("invalid loopback property 'topology' value '" + file
                    + "': cannot read it (" + e.getMessage() + "); allowed a readable net file in ibsim's format, "
                    + "or empty for " + "the HCAs on one switch");
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid loopback property 'topology' value '" + file + "': "
                    + e.getMessage());
        }
    }

    /**
     * A new subnet model of this configuration: the net file's, or the HCAs on one switch (HCA i
     * "loop" + i with node GUID base + (i+1)*0x100 and port p GUID node + p; the switch base + 0x10).
     */
    public Topology buildTopology() {
        return topology.isEmpty() ? SingleSwitchTopology.loopback(nodeGuidBase, hcas, portsPerHca)
                : readTopology(topology);
    }

    /** Two HCAs of one port each, the default partition with IPoIB, MTU 2048. */
    public static FabricConfig defaults() {
        return new FabricConfig(2, 1, Gid.DEFAULT_SUBNET_PREFIX, 0x0002_c903_0000_0000L, IbMtu.MTU_2048,
                Rate.RATE_10_GBPS,
                List.of(PartitionConfig.parse("Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;")),
                1);
    }
}
