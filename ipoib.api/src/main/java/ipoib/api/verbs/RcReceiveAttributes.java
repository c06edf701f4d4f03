package ipoib.api.verbs;

import ipoib.api.IbMtu;
import ipoib.api.Qpn;

/**
 * What INIT → RTR (ready to receive) needs of a connection (IBA 11.2.4.2; the attributes the CM
 * negotiates in REQ and REP): the peer, the path MTU and the first PSN expected from it.
 *
 * @param remoteQpn the peer's RC queue pair
 * @param destination the path to the peer (LID, SL, GRH fields)
 * @param pathMtu the path MTU; messages are carried in packets of at most this payload
 * @param receivePsn the first PSN the peer sends, 24 bits
 */
public record RcReceiveAttributes(Qpn remoteQpn, AddressVector destination, IbMtu pathMtu, int receivePsn) {
    public RcReceiveAttributes {
        if (remoteQpn == null || destination == null || pathMtu == null) {
            throw new IllegalArgumentException("RTR needs the remote QPN, the destination and the path MTU");
        }
        if (receivePsn < 0 || receivePsn > 0xFF_FFFF) {
            throw new IllegalArgumentException("invalid receive PSN '" + receivePsn + "': allowed 0..16777215");
        }
    }
}
