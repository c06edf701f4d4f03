package ipoib.verbs.loopback.agent;

import ipoib.verbs.loopback.subnet.Port;
import java.lang.foreign.MemorySegment;

/** An agent's Get and Set of one attribute (ibsim/sim_mad.c {@code Smpfn}). */
@FunctionalInterface
interface AttributeHandler {
    /**
     * Answers the request in place.
     *
     * @param at the port the MAD arrived through (a switch's external port or port 0, an HCA port)
     * @param method Get or Set
     * @param modifier the attribute modifier
     * @param data the attribute data (64 octets of an SMP, 192 of a PMA MAD), read for a Set and
     *        overwritten with the answer
     * @return the MAD status of the answer (0 or a {@code Smp.STATUS_*} code)
     */
    int handle(Port at, int method, int modifier, MemorySegment data);
}
