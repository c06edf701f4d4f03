/**
 * The communication manager of IBA 1.2.1 chapter 12 for reliable connections, as a plain engine on
 * one {@link ipoib.runtime.ControlLoop} (not exported yet: the link will embed it for IPoIB
 * connected mode, RFC 4755).
 *
 * <p>{@link ipoib.cm.CmAgent} is the agent of one port: it sends and receives the CM MADs of
 * {@link ipoib.codec.cm} through a {@link ipoib.cm.CmSender}, matches services on the passive side
 * ({@link ipoib.cm.CmAgent#listen}), runs the active side's REQ → REP → RTU and the passive side's
 * REQ → REP → RTU exchanges with retransmission on timeout (IBA 12.6, 12.9), answers MRA, rejects
 * with IBA table 109's reasons, and runs DREQ → DREP disconnection with a time-wait.
 */
package ipoib.cm;
