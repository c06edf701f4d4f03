package ipoib.sa;

import ipoib.api.Gid;
import ipoib.api.IbMtu;
import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.QKey;
import ipoib.api.Rate;
import ipoib.api.sa.SaException;
import ipoib.api.sa.SaStatus;
import ipoib.api.sa.SubnetAdministrator;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * Joining an IPoIB multicast group that may not exist yet, the one place for the link and the
 * multicast manager.
 *
 * <ul>
 * <li>Every group but the broadcast group is created like the broadcast group (RFC 4391 §4: "the
 * same P_Key, Q_Key, SL, MTU, and HopLimit ... The rest of attributes SHOULD follow the values
 * used in the broadcast-GID"): {@link #likeBroadcast} is the template, and the FullMember join is
 * one {@link SubnetAdministrator#create} carrying it as components, so the SA creates the group
 * when it is missing and refuses to join one whose parameters differ (Linux does the same:
 * drivers/infiniband/ulp/ipoib/ipoib_multicast.c, {@code ipoib_mcast_join}, the
 * {@code mcast != priv->broadcast} block adding the QKEY, MTU, TCLASS, RATE, SL, FLOW_LABEL and
 * HOP_LIMIT components).</li>
 * <li>The broadcast group is joined with {@link #joinOrCreate}: a plain join first, and only when
 * the SA answers that the group does not exist ({@link #noSuchGroup}) a create from
 * {@link #newBroadcastGroup} (RFC 4391 §5 lets a node create it; Linux joins it without create
 * components and never creates it, OpenSM makes it from partitions.conf). Joining first matters:
 * a create request carries the port's MTU and rate as components, and the SA refuses them for an
 * existing group made with others (OpenSM: osm_sa_mcmember_record.c), so a port with a larger
 * active MTU could never join a broadcast group made by a smaller one.</li>
 * </ul>
 */
public final class JoinOrCreate {

    /** The Q_Key Linux and OpenSM give the IPoIB broadcast groups they create (OpenSM: partitions.conf default). */
    public static final QKey BROADCAST_QKEY = QKey.of(0x0b1b);

    private JoinOrCreate() {
    }

    /**
     * Whether the SA answered that the group does not exist: OpenSM answers a join of a missing
     * group ERR_REQ_INSUFFICIENT_COMPONENTS, older SAs ERR_NO_RECORDS (IBA 15.2.5.17). A timeout or
     * a local failure is not such an answer.
     */
    public static boolean noSuchGroup(Throwable failure) {
        return unwrap(failure) instanceof SaException sa && !sa.isTimeout()
                && (sa.status() == SaStatus.INSUFFICIENT_COMPONENTS || sa.status() == SaStatus.NO_RECORDS);
    }

    /**
     * The FullMember join-or-create of {@code mgid} with the broadcast group's P_Key, Q_Key, SL,
     * MTU, rate, flow label, hop limit, traffic class and packet lifetime (RFC 4391 §4).
     */
    public static McMemberRecord likeBroadcast(Mgid mgid, Gid self, McMemberRecord broadcast) {
        McMemberRecord b = broadcast;
        return new McMemberRecord(mgid, self, b.qkey(), Lid.UNASSIGNED, b.mtu(), b.trafficClass(), b.pkey(), b.rate(),
                b.packetLifetime(), b.serviceLevel(), b.flowLabel(), b.hopLimit(), JoinState.FULL_MEMBER, false);
    }

    /**
     * A new broadcast group made by this port: the IPoIB Q_Key {@link #BROADCAST_QKEY}, the
     * partition's full-membership P_Key, the port's active MTU and rate, SL 0 and the rest zero.
     */
    public static McMemberRecord newBroadcastGroup(Mgid mgid, Gid self, PKey pkey, IbMtu activeMtu, Rate rate) {
        return new McMemberRecord(mgid, self, BROADCAST_QKEY, Lid.UNASSIGNED, activeMtu, 0, pkey.asFullMember(), rate,
                0, 0, 0, 0, JoinState.FULL_MEMBER, false);
    }

    /**
     * Joins {@code mgid} as FullMember; when the SA answers that it does not exist, creates it
     * from {@code template} (asked only then). Every other failure of the join is the result.
     *
     * @param eachRequest applied to each SA request's stage (a timeout, for instance)
     */
    public static CompletionStage<McMemberRecord> joinOrCreate(SubnetAdministrator sa, Mgid mgid, Gid self,
                                                               Supplier<McMemberRecord> template,
                                                               UnaryOperator<CompletionStage<McMemberRecord>> eachRequest) {
        return eachRequest.apply(sa.join(mgid, self, JoinState.FULL_MEMBER)).handle((joined, failure) -> {
            if (failure == null) {
                return CompletableFuture.completedFuture(joined);
            }
            if (!noSuchGroup(failure)) {
                return CompletableFuture.<McMemberRecord>failedFuture(unwrap(failure));
            }
            return eachRequest.apply(sa.create(template.get()));
        }).thenCompose(stage -> stage);
    }

    private static Throwable unwrap(Throwable t) {
        while (t instanceof CompletionException && t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }
}
