package ipoib.verbs.loopback.agent;

import ipoib.codec.DecodeException;
import ipoib.codec.smp.Smp;
import ipoib.codec.smp.SmpTables;
import ipoib.codec.smp.SwitchInfo;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.SwitchTables;
import java.lang.foreign.MemorySegment;

/**
 * A switch's SwitchInfo (IBA 14.2.5.4), LinearForwardingTable (14.2.5.10) and
 * MulticastForwardingTable (14.2.5.12) (ibsim/sim_mad.c do_switchinfo, do_linearforwtbl,
 * do_multicastforwtbl). An HCA answers them as unsupported.
 */
final class SwitchAttributes {
    /** SwitchInfo octet 16 as ibsim answers it: FilterRawInboundCap and FilterRawOutboundCap (sim_net.c switchinfo). */
    static final int CAPABILITIES = 0x30;
    /** LinearForwardingTable blocks: LIDs 0..0xBFFF. */
    static final int LFT_BLOCKS = SwitchTables.LINEAR_CAP / SmpTables.LIDS_PER_LFT_BLOCK;
    /** MulticastForwardingTable blocks: MLIDs 0xC000..0xC3FF. */
    static final int MFT_BLOCKS = SwitchTables.MULTICAST_CAP / SmpTables.MLIDS_PER_MFT_BLOCK;

    private final SubnetAgentState state;

    SwitchAttributes(SubnetAgentState state) {
        this.state = state;
    }

    SwitchInfo switchInfo(Node n) {
        SwitchState s = state.switchState(n);
        return new SwitchInfo(SwitchTables.LINEAR_CAP, 0, SwitchTables.MULTICAST_CAP, n.tables().linearFdbTop(), 0,
                s.defaultMulticastPrimaryPort, s.defaultMulticastNotPrimaryPort, s.lifeTime, s.portStateChange, 0, 0,
                ipoib.verbs.loopback.subnet.Port.SWITCH_PKEY_ENTRIES, CAPABILITIES, 0);
    }

    int switchInfo(Port at, int method, int modifier, MemorySegment data) {
        Node n = at.node();
        if (!n.isSwitch()) {
            return Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
        }
        if (method == Smp.METHOD_SET) {
            SwitchInfo set;
            try {
                set = SwitchInfo.decode(data, 0);
            } catch (DecodeException e) {
                return Smp.STATUS_INVALID_VALUE;
            }
            if (set.linearFdbTop() >= SwitchTables.LINEAR_CAP || set.defaultMulticastPrimaryPort() > n.portCount()
                    || set.defaultMulticastNotPrimaryPort() > n.portCount()) {
                answer(n, data);
                return Smp.STATUS_INVALID_VALUE;
            }
            SwitchState s = state.switchState(n);
            // IBA 14.2.5.4: writing PortStateChange 1 clears it; 0 leaves it.
            if (set.portStateChange()) {
                s.portStateChange = false;
            }
            n.tables().setLinearFdbTop(set.linearFdbTop());
            s.lifeTime = set.lifeTimeValue();
            s.defaultMulticastPrimaryPort = set.defaultMulticastPrimaryPort();
            s.defaultMulticastNotPrimaryPort = set.defaultMulticastNotPrimaryPort();
        }
        answer(n, data);
        return 0;
    }

    private void answer(Node n, MemorySegment data) {
        NodeAttributes.clear(data);
        switchInfo(n).encode(data, 0);
    }

    int linearForwardingTable(Port at, int method, int modifier, MemorySegment data) {
        Node n = at.node();
        if (!n.isSwitch()) {
            return Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
        }
        if (modifier < 0 || modifier >= LFT_BLOCKS) {
            return Smp.STATUS_INVALID_VALUE;
        }
        SwitchTables t = n.tables();
        int first = modifier * SmpTables.LIDS_PER_LFT_BLOCK;
        if (method == Smp.METHOD_SET) {
            for (int i = 0; i < SmpTables.LIDS_PER_LFT_BLOCK; i++) {
                t.setLinearEntry(first + i, SmpTables.lftPort(data, 0, i));
            }
        }
        for (int i = 0; i < SmpTables.LIDS_PER_LFT_BLOCK; i++) {
            SmpTables.setLftPort(data, 0, i, t.linearEntry(first + i));
        }
        return 0;
    }

    int multicastForwardingTable(Port at, int method, int modifier, MemorySegment data) {
        Node n = at.node();
        if (!n.isSwitch()) {
            return Smp.STATUS_UNSUPPORTED_METHOD_ATTRIBUTE;
        }
        int block = SmpTables.mftBlock(modifier);
        int position = SmpTables.mftPosition(modifier);
        SwitchTables t = n.tables();
        if (block >= MFT_BLOCKS || position >= t.positions()) {
            // ibsim/sim_mad.c do_multicastforwtbl answers a block it does not have as all zeros.
            NodeAttributes.clear(data);
            return 0;
        }
        int firstMlid = SwitchTables.FIRST_MLID + block * SmpTables.MLIDS_PER_MFT_BLOCK;
        if (method == Smp.METHOD_SET) {
            for (int i = 0; i < SmpTables.MLIDS_PER_MFT_BLOCK; i++) {
                t.setMulticastMask(firstMlid + i, position, SmpTables.mftMask(data, 0, i));
            }
        }
        for (int i = 0; i < SmpTables.MLIDS_PER_MFT_BLOCK; i++) {
            SmpTables.setMftMask(data, 0, i, t.multicastMask(firstMlid + i, position));
        }
        return 0;
    }
}
