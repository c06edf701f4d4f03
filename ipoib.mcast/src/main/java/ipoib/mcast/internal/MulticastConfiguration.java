package ipoib.mcast.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * The multicast manager (PID {@value MulticastComponent#PID}). Join timeouts and retry counts
 * are the link's ({@code mcastJoinTimeoutMillis}, {@code mcastRetryCount}).
 */
@ObjectClassDefinition(name = "ipoib multicast", description = "IP multicast over IPoIB (RFC 4391 §10, §11).")
@interface MulticastConfiguration {

    @AttributeDefinition(name = "Pending frames per group",
            description = "Frames a group holds while its join is under way (Linux IPoIB: 64), 1..4096.",
            min = "1", max = "4096")
    int pendingFramesPerGroup() default 64;

    @AttributeDefinition(name = "Groups per link",
            description = "Groups a link may know at once (joined, being joined, or cached as existing or absent), 16..65536.",
            min = "16", max = "65536")
    int maxGroupsPerLink() default 1024;

    @AttributeDefinition(name = "Audit period",
            description = "Seconds between audits of a link's groups against the SA, which repair what lost traps "
                    + "left wrong (absent groups asked again, send-only and NonMember joins verified), 5..3600.",
            min = "5", max = "3600")
    int auditSeconds() default 60;

    @AttributeDefinition(name = "Send-only idle time",
            description = "Seconds a send-only membership (SendOnlyFullMember or SendOnlyNonMember) may go without "
                    + "a frame before it is left, as Linux leaves send-only groups whose neighbour was idle for two "
                    + "GC periods (60 s); a SendOnlyFullMember keeps its group alive at the SA. 10..86400.",
            min = "10", max = "86400")
    int sendOnlyIdleSeconds() default 60;
}
