package ipoib.verbs.loopback.fabric;

import java.util.Set;

/**
 * Deterministic loss in the emulated SA's RMPP transfers, for tests of the protocol's recovery:
 * DATA segments lost the first time they are sent, and ACKs (by the SegmentNumber they
 * acknowledge) lost the first time or every time they arrive. Applies to transfers started
 * after it is set.
 *
 * @param segmentsLostOnce segment numbers whose first transmission is lost
 * @param acksLostOnce SegmentNumbers whose first ACK does not reach the SA
 * @param acksLost SegmentNumbers whose ACKs never reach the SA
 */
record RmppFaults(Set<Integer> segmentsLostOnce, Set<Integer> acksLostOnce, Set<Integer> acksLost) {
    static final RmppFaults NONE = new RmppFaults(Set.of(), Set.of(), Set.of());

    RmppFaults {
        segmentsLostOnce = Set.copyOf(segmentsLostOnce);
        acksLostOnce = Set.copyOf(acksLostOnce);
        acksLost = Set.copyOf(acksLost);
    }
}
