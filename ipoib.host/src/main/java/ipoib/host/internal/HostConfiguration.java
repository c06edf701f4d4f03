package ipoib.host.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** The host layer (PID {@value HostComponent#PID}). */
@ObjectClassDefinition(name = "ipoib host", description = "The IP host layer over the IPoIB interfaces.")
@interface HostConfiguration {

    @AttributeDefinition(name = "TTL", description = "IPv4 TTL and IPv6 hop limit of the packets the host sends.",
            min = "1", max = "255")
    int ttl() default 64;

    @AttributeDefinition(name = "Answer echo requests", description = "Answer ICMP and ICMPv6 echo requests to the host's addresses.")
    boolean answerEcho() default true;

    @AttributeDefinition(name = "Ignore IPv4 echo to broadcast and multicast",
            description = "Leave IPv4 echo requests to a broadcast or multicast address unanswered, as Linux does by "
                    + "default (net.ipv4.icmp_echo_ignore_broadcasts=1).")
    boolean echoIgnoreBroadcasts() default true;

    @AttributeDefinition(name = "Ignore IPv6 echo to multicast",
            description = "Leave IPv6 echo requests to a multicast group (ff02::1, ...) unanswered; Linux answers them "
                    + "by default (net.ipv6.icmp.echo_ignore_multicast=0).")
    boolean echoIgnoreMulticast6() default false;
}
