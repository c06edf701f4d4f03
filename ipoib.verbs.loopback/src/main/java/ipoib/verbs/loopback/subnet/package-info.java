/**
 * The subnet the loopback fabric emulates, as its management plane sees it: nodes (HCAs and
 * switches), their ports and the cables between them ({@link ipoib.verbs.loopback.subnet.Topology}),
 * each port's management state (LID, LMC, port state machine, P_Key table, M_Key, capability
 * mask; {@link ipoib.verbs.loopback.subnet.Port}), each switch's forwarding tables
 * ({@link ipoib.verbs.loopback.subnet.SwitchTables}) and ibsim's net-file format
 * ({@link ipoib.verbs.loopback.subnet.NetFile}).
 *
 * <p>The model follows ibsim's ({@code ibsim/sim.h} of linux-rdma/ibsim: {@code struct Node},
 * {@code struct Port}, {@code struct Switch}) and IBA 1.2.1 chapter 14 where ibsim simplifies.
 * Threads: management changes (agents, the fabric's link toggles) hold the topology's lock; the
 * data path reads ports' volatile state and the switches' primitive tables without locking and
 * without allocating. Private to the bundle.
 */
package ipoib.verbs.loopback.subnet;
