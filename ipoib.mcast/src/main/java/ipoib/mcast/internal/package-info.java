/**
 * The multicast group manager (private).
 *
 * <p>{@link ipoib.mcast.internal.MulticastComponent} is the thin DS component: configuration
 * (checked by {@link ipoib.mcast.internal.SettingsCheck} against the metatype), link services,
 * EventAdmin and the log, handed to {@link ipoib.mcast.internal.MulticastEngine}, a plain class
 * that tests and benchmarks build with a control loop of their own. The engine keeps the
 * listeners by interface name ({@link ipoib.mcast.internal.ListenerBook}), the ports' trap
 * subscriptions ({@link ipoib.mcast.internal.TrapRegistry}) and one
 * {@link ipoib.mcast.internal.LinkGroups} per link service, which wires the parts of one link
 * around a shared {@link ipoib.mcast.internal.LinkContext}:
 * <ul>
 * <li>{@link ipoib.mcast.internal.Egress}: the send path of RFC 4391 §10 (any thread) and the
 * group queues;</li>
 * <li>{@link ipoib.mcast.internal.JoinMachine}: joins, leaves, retries with backoff (control loop);</li>
 * <li>{@link ipoib.mcast.internal.LinkLifecycle}: UP, DOWN, multicast reset, new broadcast-GID, close;</li>
 * <li>{@link ipoib.mcast.internal.TrapFollower} (traps 66/67), {@link ipoib.mcast.internal.RouterMode}
 * (§11), {@link ipoib.mcast.internal.GroupAudit} (lost traps), {@link ipoib.mcast.internal.SendOnlyReaper}
 * (unused send-only memberships left), {@link ipoib.mcast.internal.ListenerJoins},
 * {@link ipoib.mcast.internal.EgressDecisions}, {@link ipoib.mcast.internal.GroupReport};</li>
 * <li>{@link ipoib.mcast.internal.GroupTable} and {@link ipoib.mcast.internal.Group}: the groups;
 * {@link ipoib.mcast.internal.SaRequests}: SA calls with the link's join timeout on the loop's clock;
 * {@link ipoib.mcast.internal.MulticastAttach}: the only user of the link's multicast-attach methods;
 * a listener's (and a SendOnlyFullMember sender's) join-or-create request is
 * {@link ipoib.sa.JoinOrCreate#likeBroadcast}, shared with the link's broadcast join.</li>
 * </ul>
 * The membership a sender takes is chosen in one place, {@code LinkContext.sendOnlyState()}:
 * SendOnlyFullMember where the SA's ClassPortInfo advertises it, else SendOnlyNonMember.
 */
package ipoib.mcast.internal;
