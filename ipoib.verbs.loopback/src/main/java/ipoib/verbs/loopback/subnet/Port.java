package ipoib.verbs.loopback.subnet;

import java.util.Arrays;

/**
 * One port of a node and its management state (the fields of PortInfo, IBA 14.2.5.6, that the
 * subnet's behaviour depends on; ibsim/sim.h {@code struct Port}). An HCA port has its own GUID;
 * a switch's ports 0..N all carry the switch's port-0 GUID (IBA 14.2.5.3 NodeInfo.PortGUID).
 *
 * <p>Setters are for the agents and the topology and are called with the topology's lock held;
 * they do not check IBA's rules (the agents do) and do not notify listeners (the topology does).
 * The data path reads {@link #lid()}, {@link #lmc()}, {@link #state()}, {@link #linkUp()} and
 * {@link #peer()} without locking and counts into {@link #counters()}.
 */
public final class Port {
    /** PortInfo.CapabilityMask.IsSM (IBA 14.2.5.6). */
    public static final int CAP_IS_SM = 1 << 1;
    /** IsNoticeSupported. */
    public static final int CAP_IS_NOTICE = 1 << 2;
    /** IsTrapSupported. */
    public static final int CAP_IS_TRAP = 1 << 3;
    /** IsCapabilityMaskNoticeSupported: the port sends trap 144 when its capability mask changes. */
    public static final int CAP_IS_CAPABILITY_MASK_NOTICE = 1 << 22;

    /** IsClientReregistrationSupported: the port's clients register again when the SM sets ClientReregister. */
    public static final int CAP_IS_CLIENT_REREGISTRATION = 1 << 25;

    /**
     * An HCA port's capability mask: ibsim's hcaport template (ibsim/sim_net.c, PortInfo octets
     * 20-23) and, beyond it, IsClientReregistrationSupported, as an HCA's firmware advertises it:
     * the loopback's verbs ports raise CLIENT_REREGISTER when the SM sets ClientReregister (as
     * mlx4 does, drivers/infiniband/hw/mlx4/mad.c smp_snoop), and OpenSM sets it on its first
     * sweep as master only at ports that advertise it (osm_lid_mgr.c lid_mgr_set_physp_pi).
     */
    public static final int HCA_CAPABILITIES = 0x0040C048 | CAP_IS_CLIENT_REREGISTRATION;
    /** A switch port 0's capability mask, as ibsim's smaport template (ibsim/sim_net.c). */
    public static final int SWITCH_PORT0_CAPABILITIES = 0x0000C048;

    /** P_Key table entries of an HCA port (ibsim's NodeInfo.PartitionCap). */
    public static final int HCA_PKEY_ENTRIES = 64;
    /** P_Key table entries of a switch external port (ibsim's SwitchInfo.PartitionEnforcementCap). */
    public static final int SWITCH_PKEY_ENTRIES = 64;
    /** The default full-membership P_Key every table starts with (IBA 10.9.1.2). */
    public static final int DEFAULT_PKEY = 0xFFFF;

    /** M_KeyLeasePeriod and SubnetTimeOut before an SM sets them, as ibsim's hcaport and smaport templates. */
    static final int DEFAULT_M_KEY_LEASE_PERIOD = 0x0FF9;
    static final int DEFAULT_SUBNET_TIMEOUT = 31;

    private final Node node;
    private final int number;
    private final long guid;
    private final PortCounters counters = new PortCounters();
    private final int[] pkeys;

    private volatile int lid;
    private volatile int lmc;
    private volatile PortState state = PortState.DOWN;
    private volatile PhysicalState physicalState = PhysicalState.POLLING;
    private volatile boolean linkUp;
    private volatile Port peer;

    private int smLid;
    private int smSl;
    private long mKey;
    private int mKeyProtectBits;
    private int mKeyLeasePeriod;
    private long gidPrefix;
    private int capabilityMask;
    private int linkWidthEnabled = LinkRates.WIDTH_4X;
    private int linkWidthSupported = LinkRates.WIDTH_ALL;
    private int linkWidthActive = LinkRates.WIDTH_4X;
    private int linkSpeedEnabled = LinkRates.SPEED_SDR;
    private int linkSpeedSupported = LinkRates.SPEED_ALL;
    private int linkSpeedActive = LinkRates.SPEED_SDR;
    // Defaults as ibsim's PortInfo templates (ibsim/sim_net.c hcaport, swport): 2048-octet MTU, VL0-7.
    private int mtuCap = 4;
    private int neighborMtu = 4;
    private int vlCap = 4;
    private int operationalVls = 4;
    private int hoqLife;
    private int subnetTimeout;
    private int clientReregister;

    Port(Node node, int number, long guid, int pkeyEntries, int capabilityMask) {
        this.node = node;
        this.number = number;
        this.guid = guid;
        this.pkeys = new int[pkeyEntries];
        if (pkeyEntries > 0) {
            pkeys[0] = DEFAULT_PKEY;
        }
        this.capabilityMask = capabilityMask;
        if (number == 0 && node.type() == NodeType.SWITCH) {
            // ibsim/sim_net.c smaport: switch port 0 reports a 256-octet neighbour and a 1024-octet MTU cap.
            this.neighborMtu = 1;
            this.mtuCap = 3;
        }
        if (number == 0 || node.type() == NodeType.HCA) {
            this.mKeyLeasePeriod = DEFAULT_M_KEY_LEASE_PERIOD;
            this.subnetTimeout = DEFAULT_SUBNET_TIMEOUT;
        }
    }

    public Node node() {
        return node;
    }

    /** The port number: 1..N on an HCA, 0..N on a switch. */
    public int number() {
        return number;
    }

    /** The port GUID (a switch's ports all report the switch's port-0 GUID). */
    public long guid() {
        return guid;
    }

    /** Whether this is a switch's management port 0. */
    public boolean isSwitchPort0() {
        return number == 0 && node.type() == NodeType.SWITCH;
    }

    /** The port that answers for this one's LID: itself on an HCA, port 0 on a switch (IBA 14.2.5.6). */
    public Port lidPort() {
        return node.type() == NodeType.SWITCH ? node.port(0) : this;
    }

    public PortCounters counters() {
        return counters;
    }

    /** The base LID (0 until the SM assigns one). For switch ports 1..N, see {@link #lidPort()}. */
    public int lid() {
        return lid;
    }

    void setLid(int lid) {
        this.lid = lid;
    }

    /** LID mask control: the port answers LIDs lid .. lid + 2^lmc - 1. */
    public int lmc() {
        return lmc;
    }

    void setLmc(int lmc) {
        this.lmc = lmc;
    }

    /** Whether a DLID addresses this port (its base LID with the low LMC bits masked, IBA 7.11.1). */
    public boolean answersLid(int dlid) {
        int base = lid;
        return base != 0 && dlid >= base && dlid < base + (1 << lmc);
    }

    public PortState state() {
        return state;
    }

    void setState(PortState state) {
        this.state = state;
    }

    public PhysicalState physicalState() {
        return physicalState;
    }

    void setPhysicalState(PhysicalState physicalState) {
        this.physicalState = physicalState;
    }

    /** Whether the link to the peer is trained (false for an uncabled port and for a link the fabric took down). */
    public boolean linkUp() {
        return linkUp;
    }

    void setLinkUp(boolean linkUp) {
        this.linkUp = linkUp;
    }

    /** The port at the other end of the cable, or null. Switch port 0 has none. */
    public Port peer() {
        return peer;
    }

    void setPeer(Port peer) {
        this.peer = peer;
    }

    /** Whether the data path may send through this port: its link is up and its state Active. */
    public boolean isActive() {
        return state == PortState.ACTIVE && (linkUp || isSwitchPort0());
    }

    public int smLid() {
        return smLid;
    }

    void setSmLid(int smLid) {
        this.smLid = smLid;
    }

    /** PortInfo.MasterSMSL. */
    public int smSl() {
        return smSl;
    }

    public void setSmSl(int smSl) {
        this.smSl = smSl;
    }

    public long mKey() {
        return mKey;
    }

    public void setMKey(long mKey) {
        this.mKey = mKey;
    }

    public int mKeyProtectBits() {
        return mKeyProtectBits;
    }

    public void setMKeyProtectBits(int bits) {
        this.mKeyProtectBits = bits;
    }

    public int mKeyLeasePeriod() {
        return mKeyLeasePeriod;
    }

    public void setMKeyLeasePeriod(int period) {
        this.mKeyLeasePeriod = period;
    }

    /** PortInfo.GidPrefix. */
    public long gidPrefix() {
        return gidPrefix;
    }

    public void setGidPrefix(long gidPrefix) {
        this.gidPrefix = gidPrefix;
    }

    public int capabilityMask() {
        return capabilityMask;
    }

    void setCapabilityMask(int capabilityMask) {
        this.capabilityMask = capabilityMask;
    }

    public int linkWidthEnabled() {
        return linkWidthEnabled;
    }

    void setLinkWidthEnabled(int mask) {
        this.linkWidthEnabled = mask;
    }

    public int linkWidthSupported() {
        return linkWidthSupported;
    }

    void setLinkWidthSupported(int mask) {
        this.linkWidthSupported = mask;
    }

    public int linkWidthActive() {
        return linkWidthActive;
    }

    void setLinkWidthActive(int width) {
        this.linkWidthActive = width;
    }

    public int linkSpeedEnabled() {
        return linkSpeedEnabled;
    }

    void setLinkSpeedEnabled(int mask) {
        this.linkSpeedEnabled = mask;
    }

    public int linkSpeedSupported() {
        return linkSpeedSupported;
    }

    void setLinkSpeedSupported(int mask) {
        this.linkSpeedSupported = mask;
    }

    public int linkSpeedActive() {
        return linkSpeedActive;
    }

    void setLinkSpeedActive(int speed) {
        this.linkSpeedActive = speed;
    }

    /** PortInfo.MTUCap (IBA MTU code: 1 = 256 .. 5 = 4096). */
    public int mtuCap() {
        return mtuCap;
    }

    public void setMtuCap(int mtuCap) {
        this.mtuCap = mtuCap;
    }

    /** PortInfo.NeighborMTU (set by the SM). */
    public int neighborMtu() {
        return neighborMtu;
    }

    public void setNeighborMtu(int neighborMtu) {
        this.neighborMtu = neighborMtu;
    }

    /** PortInfo.VLCap (code: 1 = VL0, 2 = VL0-1, 3 = VL0-3, 4 = VL0-7, 5 = VL0-14). */
    public int vlCap() {
        return vlCap;
    }

    public void setVlCap(int vlCap) {
        this.vlCap = vlCap;
    }

    /** PortInfo.OperationalVLs. */
    public int operationalVls() {
        return operationalVls;
    }

    public void setOperationalVls(int operationalVls) {
        this.operationalVls = operationalVls;
    }

    /** PortInfo.HOQLife. */
    public int hoqLife() {
        return hoqLife;
    }

    public void setHoqLife(int hoqLife) {
        this.hoqLife = hoqLife;
    }

    /** PortInfo.SubnetTimeOut. */
    public int subnetTimeout() {
        return subnetTimeout;
    }

    public void setSubnetTimeout(int subnetTimeout) {
        this.subnetTimeout = subnetTimeout;
    }

    /** PortInfo.ClientReregister as last set by the SM. */
    public int clientReregister() {
        return clientReregister;
    }

    public void setClientReregister(int clientReregister) {
        this.clientReregister = clientReregister;
    }

    /** The number of P_Key table entries (NodeInfo.PartitionCap or SwitchInfo.PartitionEnforcementCap). */
    public int pkeyEntries() {
        return pkeys.length;
    }

    /** The P_Key at an index (0 for an empty entry). */
    public int pkey(int index) {
        return pkeys[index];
    }

    void setPkey(int index, int pkey) {
        pkeys[index] = pkey & 0xFFFF;
    }

    /** Whether the table holds this P_Key's base (low 15 bits), full or limited (IBA 10.9.3). */
    public int pkeyIndexOf(int pkey) {
        int base = pkey & 0x7FFF;
        for (int i = 0; i < pkeys.length; i++) {
            if ((pkeys[i] & 0x7FFF) == base && pkeys[i] != 0) {
                return i;
            }
        }
        return -1;
    }

    /** A copy of the P_Key table. */
    public int[] pkeys() {
        return Arrays.copyOf(pkeys, pkeys.length);
    }

    @Override
    public String toString() {
        return node.name() + "[" + number + "]";
    }
}
