package ipoib.link.internal;

import ipoib.api.LinkAddress;
import ipoib.api.link.LinkListener;
import ipoib.codec.ipoib.CapabilityFlags;
import ipoib.link.internal.cm.ConnectedMode;

/**
 * Datagram or connected mode for a running interface, like Linux's sysfs {@code mode}
 * ({@code ipoib_set_mode}, drivers/infiniband/ulp/ipoib/ipoib_main.c): connected mode starts the
 * CM listener and the shared receive queue, sets the RC flag in the own link-layer address and
 * raises the MTU to {@value ConnectedMode#MTU}; datagram mode tears every connection down and
 * clears the flag. Either way the link announces its addresses again (PATHS_STALE makes ARP and ND
 * send a gratuitous ARP and an unsolicited NA), so that peers learn the new flag. Runs on the
 * link's control thread.
 */
final class ModeSwitch {
    private ModeSwitch() {}

    /**
     * Brings {@code r} to the wanted mode.
     *
     * @return null when the mode runs as wanted, else why connected mode cannot run
     */
    static String apply(LinkEngine engine, LinkResources r, boolean connected) {
        ConnectedMode running = r.connected;
        if (connected == (running != null)) {
            return null;
        }
        String problem = null;
        if (connected) {
            if (r.cmAgent == null) {
                problem = cmUnavailable(r);
            } else {
                try {
                    r.connected = new ConnectedMode(engine, r.port, r.cmAgent, r.pkeyIndex, r.pkeyValue, r.qpn, r.gid);
                } catch (RuntimeException e) {
                    problem = "connected mode refused by the provider: " + e.getMessage();
                }
            }
        }
        // Address and MTU (which reads r.connected) change together as a reader sees them: the flag
        // is set after connected mode runs and cleared before it stops.
        int flags = connected && r.connected != null ? CapabilityFlags.CONNECTED : 0;
        boolean changed = r.address.flags() != flags;
        if (changed) {
            r.address = new LinkAddress(flags, r.qpn, r.gid);
        }
        if (!connected) {
            r.connected = null;
            running.close();
        }
        if (changed) {
            engine.hooks().info(engine.name() + ": " + (flags != 0 ? "connected" : "datagram") + " mode, MTU "
                    + engine.mtu() + ", link address " + r.address);
            engine.hooks().notifyListeners(engine, LinkListener.Change.PATHS_STALE);
        }
        if (problem != null) {
            engine.hooks().warn(engine.name() + ": stays in datagram mode: " + problem, null);
        }
        return problem;
    }

    private static String cmUnavailable(LinkResources r) {
        try {
            r.port.cmTransport();
            return "the port's CM agent could not start";
        } catch (RuntimeException e) {
            return e.getMessage();
        }
    }
}
