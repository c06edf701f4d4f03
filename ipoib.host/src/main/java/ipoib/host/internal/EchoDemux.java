package ipoib.host.internal;

import ipoib.api.link.IpoibLink;
import ipoib.codec.ip.IcmpEcho;
import java.lang.foreign.MemorySegment;

/**
 * Where a validated ICMP or ICMPv6 message goes, for both families: an echo request to one of
 * the link's addresses to the {@link EchoResponder}, an echo reply to the {@link EchoRequests}
 * it may answer; other messages are not handled by this host.
 */
final class EchoDemux {
    private final EchoRequests requests;
    private final EchoResponder responder;

    EchoDemux(EchoRequests requests, EchoResponder responder) {
        this.requests = requests;
        this.responder = responder;
    }

    /**
     * A checksum-valid message of {@code length} octets at {@code icmp} in the IP packet at
     * {@code ip}; {@code local}: addressed to one of the link's addresses (not multicast/broadcast).
     */
    void received(IpoibLink link, boolean v6, MemorySegment b, long ip, long icmp, int length, boolean local) {
        if (!IcmpEcho.isEchoLength(length) || IcmpEcho.code(b, icmp) != 0) {
            return;
        }
        int type = IcmpEcho.type(b, icmp);
        if (type == (v6 ? IcmpEcho.TYPE_V6_ECHO_REQUEST : IcmpEcho.TYPE_ECHO_REQUEST)) {
            if (v6) {
                responder.requested6(link, b, ip, length, local);
            } else {
                responder.requested4(link, b, ip, icmp, length, local);
            }
        } else if (type == (v6 ? IcmpEcho.TYPE_V6_ECHO_REPLY : IcmpEcho.TYPE_ECHO_REPLY)) {
            requests.replied(link, v6, b, ip, icmp, length);
        }
    }
}
