package ipoib.verbs.loopback.fabric;

/**
 * Carries CM MADs from one port's QP1 to another's (IBA 12.6: class 0x07 on the GSI): shown to the
 * wire tap, forwarded through the switches on the events loop and delivered when the destination
 * LID is an active port with a CM agent; otherwise dropped and counted (the sender's agent times out and retries, as on a wire).
 */
final class CmRouter {
    private final FabricCounters counters;
    private final FabricEvents events;
    private final WireTapFeed tap;
    private final SwitchForwarding forwarding;

    CmRouter(FabricCounters counters, FabricEvents events, WireTapFeed tap, SwitchForwarding forwarding) {
        this.forwarding = forwarding;
        this.counters = counters;
        this.events = events;
        this.tap = tap;
    }

    void send(LoopPort from, int dlid, byte[] mad) {
        int slid = from.lidValue();
        tap.management(slid, dlid, mad);
        events.execute(() -> {
            LoopPort dst = forwarding.route(from, dlid, SwitchForwarding.udOctets(false, mad.length), 1);
            if (dst == null) {
                return;
            }
            if (!dst.isActive()) {
                counters.drop(DropReason.NO_SUCH_LID);
                return;
            }
            try {
                if (!dst.loopCmTransport().deliver(slid, mad)) {
                    counters.drop(DropReason.NO_SUCH_QP);
                }
            } catch (RuntimeException e) {
                events.failed("CM agent of port " + dst + " failed on a MAD", e);
            }
        });
    }
}
