package ipoib.verbs.loopback.fabric;

import ipoib.api.Gid;
import ipoib.api.PKey;
import ipoib.api.Rate;
import ipoib.api.sa.SaStatus;
import ipoib.codec.mad.SaMcMemberRecord;
import ipoib.codec.mad.Selector;
import java.util.function.Function;

/**
 * OpenSM 3.3.23's checks of an MCMemberRecord Set against a group, each failure naming the rule
 * and OpenSM's ERR code, so that a refusal in the loopback log reads like the line OpenSM logs
 * (file and line references are to {@code opensm/osm_sa_mcmember_record.c} at tag 3.3.23).
 */
final class McMemberRules {
    /** The IPoIB signatures of an MGID (RFC 4391 §4): IPv4 0x401B, IPv6 0x601B. */
    private static final int IPV4_SIGNATURE = 0x401B;
    private static final int IPV6_SIGNATURE = 0x601B;

    private McMemberRules() {}

    /**
     * {@code ipoib_mcgroup_creation_validation} (on by default, osm_subnet.c:851; applied in
     * mcmr_rcv_create_new_mgrp, lines 856-897): creating an IPoIB group other than the broadcast
     * group needs the broadcast group of the same scope and P_Key (ERR 1B1B), and the request's
     * Q_Key, P_Key, TClass, SL, FlowLabel and HopLimit must match it (ERR 1B1C).
     *
     * @param groups the existing group of an MGID, or null
     */
    static void ipoibCreation(long mask, SaMcMemberRecord request, Function<Gid, MulticastGroup> groups)
            throws SaStatusException {
        Gid mgid = request.mgid();
        int signature = (int) (mgid.prefix() >>> 32) & 0xFFFF;
        if (signature != IPV4_SIGNATURE && signature != IPV6_SIGNATURE) {
            return;
        }
        // The broadcast MGID ff1S:401b:PPPP::ffff:ffff with the request's scope S and P_Key PPPP.
        long prefix = 0xff10_401b_0000_0000L | (mgid.prefix() & 0x000f_0000_0000_0000L)
                | (mgid.prefix() & 0xffff_0000L);
        Gid broadcast = new Gid(prefix, 0xffff_ffffL);
        if (signature == IPV4_SIGNATURE && mgid.equals(broadcast)) {
            return;
        }
        MulticastGroup group = groups.apply(broadcast);
        if (group == null) {
            throw refused("ERR 1B1B (ipoib_mcgroup_creation_validation): broadcast group " + broadcast
                    + " not found for " + mgid);
        }
        String mismatch = otherComponents(mask, request, group);
        if (mismatch != null) {
            throw refused("ERR 1B1C (ipoib_mcgroup_creation_validation): " + mismatch + " of " + mgid
                    + " differs from broadcast group " + broadcast);
        }
    }

    /**
     * {@code mcgroup_join_validation} (on by default, osm_subnet.c:852; lines 1303-1320, ERR 1B1A):
     * a join of an existing group must match its Q_Key, P_Key, TClass, SL, FlowLabel and HopLimit
     * where the component mask names them.
     */
    static void joinExisting(long mask, SaMcMemberRecord request, MulticastGroup group) throws SaStatusException {
        String mismatch = otherComponents(mask, request, group);
        if (mismatch != null) {
            throw refused("ERR 1B1A (mcgroup_join_validation): " + mismatch + " of group " + group.mgid());
        }
    }

    /**
     * {@code validate_more_comp_fields} (lines 239-329) and {@code validate_port_caps} (lines
     * 336-366), ERR 1B12: the MTU and rate selectors of the request hold for the group, and the
     * joining port carries the group's MTU and rate.
     */
    static void moreComponentsAndPortCaps(long mask, SaMcMemberRecord request, MulticastGroup group, LoopPort port,
                                          Rate portRate) throws SaStatusException {
        if ((mask & SaMcMemberRecord.CM_MTU_SELECTOR) != 0
                && !selected(request.mtuSelector(), group.mtu.code(), request.mtu())) {
            throw refused("ERR 1B12 (validate_more_comp_fields): group MTU code " + group.mtu.code() + " is not "
                    + request.mtuSelector() + " " + request.mtu() + " for group " + group.mgid());
        }
        if ((mask & SaMcMemberRecord.CM_RATE_SELECTOR) != 0) {
            double wanted = request.rate() == 0 ? 0 : gbps(rateOf(request.rate()));
            if (!selected(request.rateSelector(), gbps(group.rate), wanted)) {
                throw refused("ERR 1B12 (validate_more_comp_fields): group rate " + group.rate + " is not "
                        + request.rateSelector() + " rate code " + request.rate() + " for group " + group.mgid());
            }
        }
        if (port.activeMtu().bytes() < group.mtu.bytes()) {
            throw refused("ERR 1B12 (validate_port_caps): port " + port + " MTU " + port.activeMtu()
                    + " is less than the MTU " + group.mtu + " of group " + group.mgid());
        }
        if (gbps(portRate) < gbps(group.rate)) {
            throw refused("ERR 1B12 (validate_port_caps): port " + port + " rate " + portRate
                    + " is less than the rate " + group.rate + " of group " + group.mgid());
        }
    }

    /** Whether the MTU and rate selectors of a query hold for a group (validate_more_comp_fields). */
    static boolean selectorsHold(long mask, SaMcMemberRecord request, MulticastGroup group) {
        try {
            if ((mask & SaMcMemberRecord.CM_MTU_SELECTOR) != 0
                    && !selected(request.mtuSelector(), group.mtu.code(), request.mtu())) {
                return false;
            }
            return (mask & SaMcMemberRecord.CM_RATE_SELECTOR) == 0 || selected(request.rateSelector(),
                    gbps(group.rate), request.rate() == 0 ? 0 : gbps(rateOf(request.rate())));
        } catch (SaStatusException unknownRate) {
            return false;
        }
    }

    /**
     * {@code validate_other_comp_fields} (lines 1057-1137): the first component of the request
     * that differs from the group, as OpenSM's ERR 1B30..1B36 names it, or null.
     */
    static String otherComponents(long mask, SaMcMemberRecord r, MulticastGroup g) {
        if ((mask & SaMcMemberRecord.CM_QKEY) != 0 && r.qkey() != g.qkey.value()) {
            return String.format("ERR 1B30 Q_Key mismatch: query 0x%x group 0x%x", r.qkey(), g.qkey.value());
        }
        if ((mask & SaMcMemberRecord.CM_PKEY) != 0) {
            int group = g.pkey.value();
            if ((r.pkey() & PKey.FULL_MEMBER_BIT) == 0 && (group & PKey.FULL_MEMBER_BIT) == 0) {
                return String.format("ERR 1B31 both limited P_Keys: query 0x%x group 0x%x", r.pkey(), group);
            }
            if ((r.pkey() & 0x7fff) != (group & 0x7fff)) {
                return String.format("ERR 1B32 P_Key base mismatch: query 0x%x group 0x%x", r.pkey(), group);
            }
        }
        if ((mask & SaMcMemberRecord.CM_TCLASS) != 0 && r.trafficClass() != g.trafficClass) {
            return "ERR 1B33 TClass mismatch: query " + r.trafficClass() + " group " + g.trafficClass;
        }
        if ((mask & SaMcMemberRecord.CM_SL) != 0 && r.serviceLevel() != g.serviceLevel) {
            return "ERR 1B34 SL mismatch: query " + r.serviceLevel() + " group " + g.serviceLevel;
        }
        if ((mask & SaMcMemberRecord.CM_FLOW_LABEL) != 0 && r.flowLabel() != g.flowLabel) {
            return String.format("ERR 1B35 FlowLabel mismatch: query 0x%x group 0x%x", r.flowLabel(), g.flowLabel);
        }
        if ((mask & SaMcMemberRecord.CM_HOP_LIMIT) != 0 && r.hopLimit() != g.hopLimit) {
            return "ERR 1B36 HopLimit mismatch: query " + r.hopLimit() + " group " + g.hopLimit;
        }
        return null;
    }

    /** Selector semantics of validate_more_comp_fields: 0 greater, 1 less, 2 exactly, 3 anything. */
    private static boolean selected(Selector selector, double group, double requested) {
        return switch (selector) {
            case GREATER_THAN -> group > requested;
            case LESS_THAN -> group < requested;
            case EXACTLY -> group == requested;
            case LARGEST_AVAILABLE -> true;
        };
    }

    private static Rate rateOf(int code) throws SaStatusException {
        try {
            return Rate.fromCode(code);
        } catch (IllegalArgumentException e) {
            throw refused("invalid rate code " + code + ": " + e.getMessage());
        }
    }

    /** The rate in Gb/s, for OpenSM's ordering of rates by bandwidth (ib_path_compare_rates). */
    static double gbps(Rate rate) {
        return Double.parseDouble(rate.toString().substring(0, rate.toString().indexOf(' ')));
    }

    private static SaStatusException refused(String rule) {
        return new SaStatusException(SaStatus.REQUEST_INVALID, rule);
    }
}
