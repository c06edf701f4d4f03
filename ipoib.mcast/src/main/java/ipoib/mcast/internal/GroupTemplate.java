package ipoib.mcast.internal;

import ipoib.api.Gid;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;

/**
 * The join-or-create request of a listener (RFC 4391 §10), and of a SendOnlyFullMember sender: a
 * join with the create components, so that the SA makes the group when it does not exist, with
 * the broadcast group's P_Key, Q_Key, SL, MTU, rate, flow label, hop limit and traffic class (as
 * Linux's {@code ipoib_mcast_join} sends them for every group but the broadcast group).
 */
final class GroupTemplate {
    private GroupTemplate() {}

    static McMemberRecord of(Mgid mgid, Gid self, McMemberRecord broadcast) {
        return of(mgid, self, broadcast, JoinState.FULL_MEMBER);
    }

    static McMemberRecord of(Mgid mgid, Gid self, McMemberRecord broadcast, JoinState state) {
        McMemberRecord b = broadcast;
        return new McMemberRecord(mgid, self, b.qkey(), Lid.UNASSIGNED, b.mtu(), b.trafficClass(), b.pkey(), b.rate(),
                b.packetLifetime(), b.serviceLevel(), b.flowLabel(), b.hopLimit(), state, false);
    }
}
