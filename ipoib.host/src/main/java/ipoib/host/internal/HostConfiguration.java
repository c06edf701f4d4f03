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
}
