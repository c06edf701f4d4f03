package ipoib.verbs.loopback.agent;

/**
 * Where the management plane delivers MADs to an attached client: what ibsim writes to the
 * client's socket as a {@code struct sim_request} (include/ibsim.h). Called with the topology's
 * lock held: hand the bytes off (copy them), do not block, do not call back into the plane.
 */
@FunctionalInterface
public interface MadReceiver {
    /**
     * A MAD for this client: a response to one it sent, a request or trap for it, or its own
     * request given back undelivered.
     *
     * @param dlid {@code sim_request.dlid}: the destination LID (0xFFFF, permissive, for a directed-route SMP)
     * @param slid {@code sim_request.slid}: the source LID
     * @param dqp {@code sim_request.dqp}: the destination QP (0 for SMPs, 1 for GMPs)
     * @param sqp {@code sim_request.sqp}: the source QP
     * @param status {@code sim_request.status}: 0, or 110 (ETIMEDOUT) when the plane could not deliver
     *        the client's request and gives it back (ibsim/sim_mad.c process_packet {@code _dropped})
     * @param mad {@code sim_request.mad}: the MAD; the array is the plane's, valid only during the call
     * @param length {@code sim_request.length}: the MAD's length in octets (256)
     * @return whether the client took it; false when the client is gone (its process ended, its
     *         socket refuses datagrams): the plane then gives a request back to its sender
     *         undelivered, as the sender's MAD layer would time it out
     */
    boolean received(int dlid, int slid, int dqp, int sqp, int status, byte[] mad, int length);
}
