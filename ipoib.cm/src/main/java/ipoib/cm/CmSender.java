package ipoib.cm;

import ipoib.codec.cm.CmMad;

/** Sends a CM MAD to a peer's agent (the GSI, QP1). Datagram semantics: no retry, no wait. */
@FunctionalInterface
public interface CmSender {

    /**
     * @throws RuntimeException when the port cannot send; the agent counts it and treats the MAD as lost
     */
    void send(CmEndpoint to, CmMad mad);
}
