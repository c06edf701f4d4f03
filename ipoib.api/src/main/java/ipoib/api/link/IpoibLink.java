package ipoib.api.link;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Gid;
import ipoib.api.LinkAddress;
import ipoib.api.McMemberRecord;
import ipoib.api.Mgid;
import ipoib.api.PKey;
import ipoib.api.PathRecord;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.verbs.Port;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * An IPoIB interface on one (HCA, port, P_Key), registered as a service with the property
 * {@value #NAME_PROPERTY}: its identity, state and counters, the send methods and the path cache,
 * for every user. Attaching multicast groups is a separate role ({@link MulticastAttachment})
 * for the multicast manager alone.
 *
 * <p>The send methods copy the payload into a pooled, registered buffer behind the 4-octet
 * header and return at once; the caller keeps its segment. They never block and do not
 * allocate.
 */
@ProviderType
public interface IpoibLink {

    /** Service property: the interface name, e.g. {@code ib0_1_ffff}. */
    String NAME_PROPERTY = "ipoib.link";

    /**
     * Service property: milliseconds one multicast join attempt may take before it counts as
     * failed (Integer; the design document's {@code mcast_timeout}). The multicast manager uses
     * the link's value for every group of the link.
     */
    String MCAST_JOIN_TIMEOUT_PROPERTY = "ipoib.mcast.joinTimeoutMillis";

    /**
     * Service property: multicast join attempts whose backoff doubles before it settles at the
     * longest (Integer; the design document's {@code mcast_retry_cnt}).
     */
    String MCAST_RETRY_COUNT_PROPERTY = "ipoib.mcast.retryCount";

    String name();

    LinkState state();

    /** Why the link is in its state (e.g. "broadcast join failed: SA status 0x0600"). */
    String stateReason();

    /** The port, or null when the provider is gone. */
    Port port();

    /** The partition (with the full-membership bit as configured). */
    PKey pkey();

    /** The broadcast-GID (RFC 4391 §4) derived from the P_Key and scope. */
    Mgid broadcastGid();

    /** The own link-layer address; null unless UP. */
    LinkAddress address();

    /** The own port GID; null unless UP. */
    Gid gid();

    /** The IPoIB MTU: the broadcast group's IB MTU minus 4; 0 unless UP. */
    int mtu();

    /** The link's Q_Key from the broadcast group; null unless UP. */
    QKey qkey();

    /** The broadcast group's service level (RFC 4391 §9.1.2 default for unicast). */
    int serviceLevel();

    /**
     * The broadcast group's record as the join returned it (MLID, Q_Key, MTU, SL, rate, flow
     * label, hop limit, traffic class): the parameters other IPoIB groups of the link are created
     * with (RFC 4391 §10). Null unless UP, and null from implementations that do not keep it
     * (then ask the subnet administrator).
     *
     * @since 1.1
     */
    default McMemberRecord broadcastGroup() {
        return null;
    }

    LinkCounters counters();

    /** Drop counters by reason name, for the shell and diagnostics. */
    Map<String, Long> dropCounters();

    /** The own QPN; null unless UP. */
    Qpn qpn();

    /**
     * Sends to a unicast peer over one of this link's paths; a path that is no longer
     * {@linkplain LinkPath#valid() valid} (or another link's) drops the frame as
     * {@link TransmitResult#DROPPED_NO_ROUTE}.
     */
    TransmitResult sendUnicast(LinkPath path, Qpn remoteQpn, int etherType, MemorySegment payload);

    /**
     * Sends to a unicast peer known by its whole link-layer address: a link in connected mode
     * sends over a reliable connection when the address carries the RC flag (Linux's
     * {@code IPOIB_FLAGS_RC}, 0x80) and over UD otherwise; a link in datagram mode ignores the
     * flags. The default sends to the address's QPN over UD.
     *
     * @since 2.1
     */
    default TransmitResult sendUnicast(LinkPath path, LinkAddress destination, int etherType, MemorySegment payload) {
        return sendUnicast(path, destination.qpn(), etherType, payload);
    }

    /**
     * Whether frames to this peer go over an established reliable connection now (connected mode);
     * false in datagram mode.
     *
     * @since 2.1
     */
    default boolean connectionUp(LinkAddress peer) {
        return false;
    }

    /**
     * Sends to a multicast group the port is a member of (FullMember or SendOnlyNonMember); the
     * egress decision of RFC 4391 §10 belongs to the multicast manager.
     */
    TransmitResult sendMulticast(Mgid group, int etherType, MemorySegment payload);

    /** Sends to the broadcast group. */
    TransmitResult sendBroadcast(int etherType, MemorySegment payload);

    /**
     * Starts a transmit burst on the calling thread (Linux's {@code xmit_more}): until
     * {@link #endBurst()}, the frames this thread sends on the link are copied into send buffers
     * and posted together as one post list at {@code endBurst} (or whenever the list is full), so
     * that a burst costs one post (one doorbell on hardware) instead of one per frame. A frame
     * queued in the burst is reported {@link TransmitResult#SENT}; one the send queue does not
     * take when the burst is posted is counted as a drop. Other threads' sends are not held back.
     * Allocation-free; the caller must call {@code endBurst} (in a {@code finally}).
     *
     * @return true when the burst started; false when the link is not UP or a burst is open on
     *         it already: another thread's (this thread's frames are then posted one by one) or
     *         this thread's own (a nested burst: the frames join it and the outer
     *         {@code endBurst} posts them); after false the caller does not call {@code endBurst}
     * @since 2.1
     */
    default boolean beginBurst() {
        return false;
    }

    /**
     * Posts the frames queued since {@link #beginBurst()} as one list and ends the calling
     * thread's burst; does nothing when this thread holds no burst.
     *
     * @since 2.1
     */
    default void endBurst() {
    }

    /**
     * A reference to the path to a port of this link's partition, from the link's path cache
     * (one PathRecord query per destination, shared by every user). The stage completes when the
     * path is usable, or exceptionally when the link is not UP or the subnet administrator has no
     * path; the caller {@linkplain LinkPath#release() releases} what it got.
     *
     * @param serviceLevelFromPath the SL of the address handle: the PathRecord's (true) or the
     *        broadcast group's (false, RFC 4391 §9.1.2)
     * @since 2.0
     */
    java.util.concurrent.CompletionStage<LinkPath> acquirePath(Gid destination, boolean serviceLevelFromPath);

    /**
     * The path cache: the PathRecord of every usable path by destination GID (a snapshot, for
     * the path-information query and the shell).
     *
     * @since 2.0
     */
    Map<Gid, PathRecord> paths();
}
