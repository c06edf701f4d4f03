package ipoib.arp.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/** The ARP resolver (PID {@value ArpResolver#PID}); changes apply without losing the tables. */
@ObjectClassDefinition(name = "ipoib ARP", description = "IPv4 address resolution over IPoIB (RFC 4391 §9.2).")
@interface ArpConfiguration {

    @AttributeDefinition(name = "Retransmit time", description = "ms between ARP requests of one resolution, 10..60000.",
            min = "10", max = "60000")
    int retransmitMillis() default 1000;

    @AttributeDefinition(name = "Requests", description = "Broadcast requests before an entry is FAILED and its queued frames dropped, 1..100.",
            min = "1", max = "100")
    int requests() default 3;

    @AttributeDefinition(name = "Unicast probes", description = "Unicast requests to the cached address when revalidating, before broadcasting, 0..10.",
            min = "0", max = "10")
    int unicastProbes() default 1;

    @AttributeDefinition(name = "Pending queue", description = "Frames queued per neighbour while it resolves, 1..1024 (Linux keeps 3).",
            min = "1", max = "1024")
    int queueLength() default 3;

    @AttributeDefinition(name = "Table size", description = "Entries per interface, 16..65536; the least recently used is evicted when full.",
            min = "16", max = "65536")
    int maxEntries() default 1024;

    @AttributeDefinition(name = "Revalidation period",
            description = "ms after the last confirmation at which a used entry is re-checked (RFC 4391 §9.4: a peer's QPN can change), 100..86400000.",
            min = "100", max = "86400000")
    long revalidateMillis() default 30_000;

    @AttributeDefinition(name = "Idle time", description = "ms an entry neither used nor confirmed is kept, 1000..86400000.",
            min = "1000", max = "86400000")
    long idleMillis() default 300_000;

    @AttributeDefinition(name = "Failed hold time", description = "ms a FAILED entry answers 'no route' before resolution may be tried again, 0..600000.",
            min = "0", max = "600000")
    long failedHoldMillis() default 3_000;

    @AttributeDefinition(name = "PathRecord timeout", description = "ms a PathRecord lookup may take, 100..600000.",
            min = "100", max = "600000")
    long pathTimeoutMillis() default 30_000;

    @AttributeDefinition(name = "Service level", description = "SL of unicast: the broadcast group's (RFC 4391 §9.1.2 default) or the PathRecord's.",
            options = {@Option(label = "broadcast group", value = "broadcast"), @Option(label = "PathRecord", value = "path")})
    String serviceLevel() default "broadcast";

    @AttributeDefinition(name = "Gratuitous ARP", description = "Announce each IPv4 address when it is added and when its interface comes up.")
    boolean gratuitous() default true;
}
