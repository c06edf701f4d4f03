package ipoib.verbs.loopback.agent;

import ipoib.codec.DecodeException;
import ipoib.codec.smp.PortInfo;
import ipoib.codec.smp.Smp;
import ipoib.verbs.loopback.subnet.LinkRates;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.PhysicalState;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import ipoib.verbs.loopback.subnet.PortStateTransition;
import ipoib.verbs.loopback.subnet.Topology;
import java.lang.foreign.MemorySegment;

/**
 * PortInfo (IBA 14.2.5.6) Get and Set (ibsim/sim_mad.c do_portinfo). The modifier names the port
 * on a switch; on an HCA 0 means the arrival port and a Set may only change the arrival port. A
 * Set is checked whole before anything changes: an invalid PortState transition, an enabled width
 * or speed the port does not support, OperationalVLs above VLCap or a cabled port's NeighborMTU above
 * MTUCap leave
 * the port as it was and answer status 7 (invalid value). M_Key is stored and reported but not
 * enforced (OpenSM's default M_Key is 0).
 */
final class PortInfoAttribute {
    /** PortInfo.LinkDownDefaultState: Polling (ibsim's templates). */
    static final int LINK_DOWN_DEFAULT_POLLING = 2;
    /** PortInfo.VLStallCount of ibsim's templates. */
    static final int VL_STALL_COUNT = 7;
    /** PortInfo.CapabilityMask2 IsLinkWidth2XSupported (LinkRates.WIDTH_ALL includes 2x). */
    static final int CAPABILITY_MASK2 = 0x0010;

    /** GUIDCap of an HCA port (ibsim/sim_net.c hcaport); GUIDInfo answers blocks past the first with zeros. */
    static final int HCA_GUID_CAP = 32;
    /** RespTimeValue of switch port 0 (ibsim/sim_net.c smaport). */
    static final int SWITCH_PORT0_RESP_TIME = 8;

    private final Topology topology;

    PortInfoAttribute(Topology topology) {
        this.topology = topology;
    }

    /** The PortInfo of {@code p} as answered through {@code at}. */
    static PortInfo portInfo(Port p, Port at) {
        boolean external = p.node().isSwitch() && p.number() != 0;
        return new PortInfo(p.mKey(), p.gidPrefix(), p.lid(), p.smLid(), external ? 0 : p.capabilityMask(), 0,
                p.mKeyLeasePeriod(), at.number(), p.linkWidthEnabled(), p.linkWidthSupported(), p.linkWidthActive(),
                p.linkSpeedSupported(), p.state().code(), p.physicalState().code(), LINK_DOWN_DEFAULT_POLLING,
                p.mKeyProtectBits(), p.lmc(), p.linkSpeedActive(), p.linkSpeedEnabled(), p.neighborMtu(), p.smSl(),
                p.vlCap(), 0, 0, PortTableAttributes.ARBITRATION_CAP, PortTableAttributes.ARBITRATION_CAP, 0,
                p.mtuCap(), p.isSwitchPort0() ? 0 : VL_STALL_COUNT, p.hoqLife(), p.operationalVls(), 0, 0, 0, 0,
                guidCap(p), false, 0, p.subnetTimeout(), p.isSwitchPort0() ? SWITCH_PORT0_RESP_TIME : 0, 0, 0, 0, 0,
                external ? 0 : CAPABILITY_MASK2, 0, 0, 0);
    }

    /** GUIDCap as ibsim's templates: 32 on an HCA port, 1 on switch port 0, 0 on external switch ports. */
    static int guidCap(Port p) {
        return p.isSwitchPort0() ? 1 : p.node().isSwitch() ? 0 : HCA_GUID_CAP;
    }

    int handle(Port at, int method, int modifier, MemorySegment data) {
        Node node = at.node();
        int number = modifier & 0x7FFFFFFF;
        if (number > node.portCount()) {
            return Smp.STATUS_INVALID_VALUE;
        }
        if (number == 0 && !node.isSwitch()) {
            number = at.number(); // IBA 14.2.5.6: on a CA, 0 means the port the SMP arrived through
        }
        Port p = node.port(number);
        int status = 0;
        if (method == Smp.METHOD_SET) {
            if (!node.isSwitch() && p != at) {
                status = Smp.STATUS_INVALID_VALUE;
            } else {
                status = set(p, data);
            }
        }
        NodeAttributes.clear(data);
        portInfo(p, at).encode(data, 0);
        return status;
    }

    private int set(Port p, MemorySegment data) {
        PortInfo s;
        try {
            s = PortInfo.decode(data, 0);
        } catch (DecodeException e) {
            return Smp.STATUS_INVALID_VALUE;
        }
        Port peer = p.linkUp() ? p.peer() : null;
        PortState state = p.isSwitchPort0() ? p.state()
                : PortStateTransition.apply(p.state(), peer == null ? null : peer.state(), s.portState());
        int width = s.linkWidthEnabled() == 0 ? p.linkWidthEnabled()
                : s.linkWidthEnabled() == 0xFF ? p.linkWidthSupported() : s.linkWidthEnabled();
        int speed = s.linkSpeedEnabled() == 0 ? p.linkSpeedEnabled()
                : s.linkSpeedEnabled() == 0xF ? p.linkSpeedSupported() : s.linkSpeedEnabled();
        boolean lidPort = p.lidPort() == p;
        if (state == null
                || (width & ~p.linkWidthSupported()) != 0
                || (speed & ~p.linkSpeedSupported()) != 0
                || s.operationalVls() > p.vlCap()
                || (p.peer() != null && s.neighborMtu() > p.mtuCap())
                || (lidPort && s.lid() >= ipoib.verbs.loopback.subnet.SwitchTables.LINEAR_CAP)
                || !ratesShared(p, width, speed)) {
            return Smp.STATUS_INVALID_VALUE;
        }
        p.setMKey(s.mKey());
        p.setGidPrefix(s.gidPrefix());
        topology.setSmLid(p, s.masterSmLid());
        p.setSmSl(s.masterSmSl());
        p.setMKeyLeasePeriod(s.mKeyLeasePeriod());
        p.setMKeyProtectBits(s.mKeyProtectBits());
        if (s.neighborMtu() != 0 && p.peer() != null) {
            p.setNeighborMtu(s.neighborMtu());
        }
        if (s.operationalVls() != 0) {
            p.setOperationalVls(s.operationalVls());
        }
        p.setHoqLife(s.hoqLife());
        p.setSubnetTimeout(s.subnetTimeout());
        p.setClientReregister(s.clientReregister() ? 1 : 0);
        if (lidPort) {
            topology.assignLid(p, s.lid(), s.lmc());
        }
        if (width != p.linkWidthEnabled() || speed != p.linkSpeedEnabled()) {
            topology.setEnabledRates(p, width, speed);
        }
        applyPhysicalState(p, s.portPhysicalState());
        if (!p.isSwitchPort0() && state != p.state()) {
            if (s.portState() == PortState.DOWN.code() && peer != null) {
                // ibsim/sim_mad.c do_portinfo: Down retrains the link; both ends come back in Init.
                topology.setState(peer, PortState.INIT);
            }
            topology.setState(p, state);
        }
        if (s.clientReregister() && !p.node().isSwitch()) {
            topology.requestClientReregister(p); // after the LID and state the same Set carried
        }
        return 0;
    }

    private static boolean ratesShared(Port p, int width, int speed) {
        Port peer = p.peer();
        return peer == null || (LinkRates.activeWidth(width, peer.linkWidthEnabled()) != 0
                && LinkRates.activeSpeed(speed, peer.linkSpeedEnabled()) != 0);
    }

    /** PortPhysicalState Set (IBA 14.2.5.6): 3 disables the port's link, 2 (Polling) brings a disabled one back. */
    private void applyPhysicalState(Port p, int requested) {
        if (p.isSwitchPort0() || p.peer() == null) {
            return;
        }
        if (requested == PhysicalState.DISABLED.code() && p.physicalState() != PhysicalState.DISABLED) {
            if (p.linkUp()) {
                topology.setLinkUp(p, false);
            }
            topology.setPhysicalState(p, PhysicalState.DISABLED);
        } else if (requested == PhysicalState.POLLING.code() && p.physicalState() == PhysicalState.DISABLED) {
            topology.setPhysicalState(p, PhysicalState.POLLING);
            if (p.peer().physicalState() != PhysicalState.DISABLED) {
                topology.setLinkUp(p, true);
            }
        }
    }
}
