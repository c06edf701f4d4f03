/**
 * The management agents of the loopback subnet and the interface ibsim's protocol server uses to
 * attach clients to it ({@link ipoib.verbs.loopback.agent.ManagementPlane}): a subnet management
 * agent on every HCA port and on every switch's port 0 (IBA 1.2.1 chapter 14), a performance
 * management agent (chapter 16.1), directed-route and LID-routed delivery of SMPs, and delivery of
 * QP1 MADs to the attached clients, as ibsim does it (ibsim/sim_mad.c, ibsim/ibsim.c of
 * linux-rdma/ibsim). Private to the bundle.
 */
package ipoib.verbs.loopback.agent;
