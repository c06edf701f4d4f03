package ipoib.verbs.loopback.fabric;

import java.util.Set;

/**
 * Deterministic loss in the emulated SA's RMPP transfers, for tests of the protocol's recovery:
 * DATA segments lost the first time they are sent, and ACKs (by the SegmentNumber they
 * acknowledge) lost every time they arrive.
 *
 * @param segmentsLostOnce segment numbers whose first transmission is lost
 * @param acksLost SegmentNumbers whose ACKs never reach the SA
 */
record RmppFaults(Set<Integer> segmentsLostOnce, Set<Integer> acksLost) {
    static final RmppFaults NONE = new RmppFaults(Set.of(), Set.of());

    RmppFaults {
        segmentsLostOnce = Set.copyOf(segmentsLostOnce);
        acksLost = Set.copyOf(acksLost);
    }
}
