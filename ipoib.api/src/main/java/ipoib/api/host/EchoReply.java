package ipoib.api.host;

import java.net.InetAddress;
import java.time.Duration;

/**
 * An ICMP (type 0) or ICMPv6 (type 129) echo reply.
 *
 * @param link the interface it arrived on
 * @param from its source address
 * @param identifier the echo identifier
 * @param sequence the echo sequence number
 * @param length octets of ICMP payload (after the 8-octet echo header)
 * @param ttl the IPv4 TTL or IPv6 hop limit it arrived with
 * @param roundTrip time from sending the request to receiving the reply
 */
public record EchoReply(String link, InetAddress from, int identifier, int sequence, int length, int ttl,
                        Duration roundTrip) {
}
