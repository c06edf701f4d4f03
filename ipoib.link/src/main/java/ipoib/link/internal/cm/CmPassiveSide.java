package ipoib.link.internal.cm;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.Qpn;
import ipoib.api.Rate;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.RcQueuePair;
import ipoib.api.verbs.RcReceiveAttributes;
import ipoib.api.verbs.RcSendAttributes;
import ipoib.cm.CmAgent;
import ipoib.cm.CmConnection;
import ipoib.cm.CmDecision;
import ipoib.cm.CmEndpoint;
import ipoib.codec.DecodeException;
import ipoib.codec.cm.CmPath;
import ipoib.codec.cm.CmRej;
import ipoib.codec.cm.CmReq;
import ipoib.codec.cm.IpoibCm;
import ipoib.link.internal.LinkResources;

/**
 * The passive side of one interface's connected mode, the listener of its service ID on the
 * port's CM agent (runs on the CM thread): a REQ with IPoIB-CM private data gets an RC queue pair
 * on the shared receive queue, moved to RTR with the REQ's path, QPN and PSN and to RTS, and a REP
 * with this interface's UD QPN and receive MTU (Linux: ipoib_cm_req_handler,
 * ipoib_cm_modify_rx_qp, ipoib_cm_send_rep); the RTU makes the connection UP, a DREQ or a
 * failure ends it.
 */
final class CmPassiveSide implements CmAgent.PassiveHandler {
    private final ConnectedMode mode;

    CmPassiveSide(ConnectedMode mode) {
        this.mode = mode;
    }

    @Override
    public CmDecision onRequest(CmReq req, CmEndpoint from) {
        int peerQpn;
        int peerMtu;
        try {
            peerQpn = IpoibCm.udQpn(req.privateData());
            peerMtu = IpoibCm.receiveMtu(req.privateData());
        } catch (DecodeException e) {
            return CmDecision.reject(CmRej.CONSUMER_DEFINED);
        }
        CmPath p = req.primary();
        CmLinkConnection c = new CmLinkConnection(false, mode, null, peerQpn, p.localLid(), p.localGid(), mode.now());
        int psn = mode.nextPsn();
        RcQueuePair qp;
        try {
            qp = mode.createQueuePair();
        } catch (RuntimeException e) {
            return CmDecision.reject(CmRej.NO_QP);
        }
        try {
            AddressVector back = new AddressVector(Lid.of(p.localLid()), p.serviceLevel(), Rate.fromCode(p.packetRate()),
                    !p.subnetLocal(), p.subnetLocal() ? null : p.localGid(), p.flowLabel(), p.hopLimit(),
                    p.trafficClass(), 0);
            qp.readyToReceive(new RcReceiveAttributes(Qpn.of(req.localQpn()), back, IbMtu.fromCode(req.pathMtu()),
                    req.startingPsn()));
            qp.readyToSend(new RcSendAttributes(psn, ConnectedMode.ACK_TIMEOUT, ConnectedMode.RETRIES, 7));
        } catch (RuntimeException e) {
            LinkResources.closeQuietly(qp);
            return CmDecision.reject(CmRej.NO_RESOURCES);
        }
        c.qp = qp;
        c.localQpn = qp.qpn().value();
        c.remoteQpn = req.localQpn();
        c.sendPsn = psn;
        c.receivePsn = req.startingPsn();
        c.sendLimit = Math.min(peerMtu, ConnectedMode.RECEIVE_MTU);
        if (!mode.table.register(c)) {
            LinkResources.closeQuietly(qp);
            return CmDecision.reject(CmRej.NO_RESOURCES);
        }
        return CmDecision.accept(c.localQpn, psn, IpoibCm.privateData(mode.udQpn(), ConnectedMode.RECEIVE_MTU));
    }

    @Override
    public void onEstablished(CmConnection connection) {
        CmLinkConnection c = mode.table.byLocalQpn(connection.localQpn());
        if (c != null) {
            c.cm = connection;
            c.state = CmLinkConnection.State.UP;
            mode.established.increment();
        }
    }

    @Override
    public void onClosed(CmConnection connection, String why) {
        CmLinkConnection c = mode.table.byLocalQpn(connection.localQpn());
        if (c != null) {
            mode.table.end(c, why);
        }
    }
}
