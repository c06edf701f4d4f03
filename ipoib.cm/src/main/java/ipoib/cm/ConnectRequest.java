package ipoib.cm;

import ipoib.codec.cm.CmPath;
import ipoib.codec.cm.CmPrivateData;
import java.util.Objects;

/**
 * What the active side's consumer asks for: the service, its RC QP (in INIT) and first PSN, and the
 * path; the agent adds the communication ID, the CA GUID and the CM timing.
 *
 * @param serviceId the service on the peer (IPoIB-CM: {@code IpoibCm.serviceId(peer's UD QPN)})
 * @param localQpn the local RC QP, 24 bits
 * @param startingPsn the first PSN the local QP sends, 24 bits
 * @param partitionKey the P_Key of the connection
 * @param pathMtu IBA MTU code of the path (4 = 2048)
 * @param primary the path to the peer
 * @param srq whether the local QP receives through a shared receive queue
 * @param privateData the REQ's private data
 */
public record ConnectRequest(long serviceId, int localQpn, int startingPsn, int partitionKey, int pathMtu,
                             CmPath primary, boolean srq, CmPrivateData privateData) {
    public ConnectRequest {
        Objects.requireNonNull(primary, "primary path");
        Objects.requireNonNull(privateData, "private data");
    }
}
