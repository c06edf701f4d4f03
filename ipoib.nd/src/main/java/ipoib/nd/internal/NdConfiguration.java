package ipoib.nd.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/** The Neighbor Discovery resolver (PID {@value NdResolver#PID}); changes apply without losing the tables. */
@ObjectClassDefinition(name = "ipoib ND",
        description = "IPv6 Neighbor Discovery over IPoIB (RFC 4391 §9.3, RFC 4861) and address autoconfiguration (RFC 4862).")
@interface NdConfiguration {

    @AttributeDefinition(name = "Retransmit time", description = "RetransTimer: ms between solicitations, 10..60000.",
            min = "10", max = "60000")
    int retransmitMillis() default 1000;

    @AttributeDefinition(name = "Solicitations", description = "MAX_MULTICAST_SOLICIT: multicast solicitations before an entry is FAILED, 1..100.",
            min = "1", max = "100")
    int requests() default 3;

    @AttributeDefinition(name = "Unicast probes", description = "MAX_UNICAST_SOLICIT: unicast probes of a STALE entry before multicast, 0..10.",
            min = "0", max = "10")
    int unicastProbes() default 3;

    @AttributeDefinition(name = "Pending queue", description = "Frames queued per neighbour while it resolves, 1..1024.",
            min = "1", max = "1024")
    int queueLength() default 3;

    @AttributeDefinition(name = "Table size", description = "Entries per interface, 16..65536.", min = "16", max = "65536")
    int maxEntries() default 1024;

    @AttributeDefinition(name = "Revalidation period",
            description = "ms after the last confirmation at which a used entry is re-checked (RFC 4391 §9.4), 100..86400000.",
            min = "100", max = "86400000")
    long revalidateMillis() default 30_000;

    @AttributeDefinition(name = "Idle time", description = "ms an entry neither used nor confirmed is kept, 1000..86400000.",
            min = "1000", max = "86400000")
    long idleMillis() default 300_000;

    @AttributeDefinition(name = "Failed hold time", description = "ms a FAILED entry answers 'no route', 0..600000.",
            min = "0", max = "600000")
    long failedHoldMillis() default 3_000;

    @AttributeDefinition(name = "PathRecord timeout", description = "ms a PathRecord lookup may take, 100..600000.",
            min = "100", max = "600000")
    long pathTimeoutMillis() default 30_000;

    @AttributeDefinition(name = "Service level", description = "SL of unicast: the broadcast group's or the PathRecord's.",
            options = {@Option(label = "broadcast group", value = "broadcast"), @Option(label = "PathRecord", value = "path")})
    String serviceLevel() default "broadcast";

    @AttributeDefinition(name = "Interface identifier",
            description = "Source of the interface identifier (RFC 4391 §8): the port GUID with the u-bit rule (recommended), or the port LID.",
            options = {@Option(label = "port GUID", value = "guid"), @Option(label = "port LID", value = "lid")})
    String interfaceIdentifier() default "guid";

    @AttributeDefinition(name = "Link-local address", description = "Configure the fe80::/64 address of each interface (RFC 4391 §8.1).")
    boolean linkLocal() default true;

    @AttributeDefinition(name = "DAD transmits", description = "DupAddrDetectTransmits: Neighbor Solicitations per tentative address, 0..10 (0: no DAD).",
            min = "0", max = "10")
    int dadTransmits() default 1;

    @AttributeDefinition(name = "Router solicitations", description = "MAX_RTR_SOLICITATIONS sent when an interface has its link-local address, 0..10.",
            min = "0", max = "10")
    int routerSolicitations() default 3;

    @AttributeDefinition(name = "Router solicitation interval", description = "ms between router solicitations, 100..600000.",
            min = "100", max = "600000")
    long routerSolicitationIntervalMillis() default 4_000;

    @AttributeDefinition(name = "Autoconfiguration", description = "Form addresses from Router Advertisement prefixes with the A flag (SLAAC, RFC 4862 §5.5.3).")
    boolean autoconf() default true;
}
