package ipoib.cm;

import ipoib.codec.cm.CmPrivateData;
import ipoib.codec.cm.CmRej;

/**
 * What a consumer answers to a REQ (passive side) or a REP (active side): accept, or reject with
 * a reason of IBA table 109.
 */
public sealed interface CmDecision {

    /**
     * The passive side accepts: its RC QP (already in RTR with the REQ's attributes), the first
     * PSN it sends, and the REP's private data.
     */
    record Accept(int localQpn, int startingPsn, CmPrivateData privateData) implements CmDecision {}

    /** The active side accepts the REP: the RTU is sent and the connection is established. */
    record Ready(CmPrivateData privateData) implements CmDecision {}

    /** A refusal with a reason code ({@link CmRej#CONSUMER_DEFINED}, {@link CmRej#NO_QP}, ...). */
    record Reject(int reason, CmPrivateData privateData) implements CmDecision {}

    static CmDecision accept(int localQpn, int startingPsn, CmPrivateData privateData) {
        return new Accept(localQpn, startingPsn, privateData);
    }

    static CmDecision ready() {
        return new Ready(CmPrivateData.empty());
    }

    static CmDecision reject(int reason) {
        return new Reject(reason, CmPrivateData.empty());
    }
}
