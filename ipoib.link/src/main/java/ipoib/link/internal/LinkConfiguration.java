package ipoib.link.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.Option;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/**
 * One IPoIB interface (factory PID {@value IpoibLinkComponent#FACTORY_PID}): the knobs of the
 * Intel high-level design §4.2 (sq_depth, rq_depth, mcast_timeout, mcast_retry_cnt, tx
 * timeout) and the RFC 4391 scope choice (§4.1).
 */
@ObjectClassDefinition(name = "ipoib interface", description = "An IPoIB interface on one (HCA, port, P_Key).")
@interface LinkConfiguration {

    @AttributeDefinition(name = "Name", description = "Interface name; empty for ibX_Y_Z (CA index, port, P_Key in hex).")
    String name() default "";

    @AttributeDefinition(name = "Provider filter",
            description = "Target filter selecting the verbs provider, e.g. (ipoib.provider=loopback).")
    String provider_target() default "(ipoib.provider=loopback)";

    @AttributeDefinition(name = "Device", description = "HCA name, e.g. loop0 or mlx5_0.")
    String device() default "loop0";

    @AttributeDefinition(name = "Port", description = "Port number on the HCA, 1..254.", min = "1", max = "254")
    int port() default 1;

    @AttributeDefinition(name = "P_Key", description = "Partition key, 0x0001..0xffff except 0x8000.")
    String pkey() default "0xffff";

    @AttributeDefinition(name = "Scope",
            description = "Scope of the broadcast-GID: a nibble 1..15 (2 is link-local), or 'search' to try 2, 5, 8, 14.")
    String scope() default "2";

    @AttributeDefinition(name = "Send queue depth", description = "sq_depth: send buffers and work requests, 1..8192.",
            min = "1", max = "8192")
    int sendQueueDepth() default 128;

    @AttributeDefinition(name = "Receive queue depth", description = "rq_depth: posted receive buffers, 1..8192.",
            min = "1", max = "8192")
    int receiveQueueDepth() default 256;

    @AttributeDefinition(name = "Multicast join timeout", description = "mcast_timeout: ms per join attempt, 10..60000.",
            min = "10", max = "60000")
    int mcastJoinTimeoutMillis() default 1000;

    @AttributeDefinition(name = "Multicast retry count",
            description = "mcast_retry_cnt: join attempts with doubling backoff before settling at the longest, 1..100.",
            min = "1", max = "100")
    int mcastRetryCount() default 5;

    @AttributeDefinition(name = "Transmit timeout",
            description = "tx timeout: ms a send buffer may stay unreturned before the link counts a stuck send, 10..60000.",
            min = "10", max = "60000")
    int transmitTimeoutMillis() default 5000;

    @AttributeDefinition(name = "Mode",
            description = "datagram (IPoIB-UD, RFC 4391) or connected (IPoIB-CM over reliable connections, RFC 4755: "
                    + "RC flag 0x80 in the link address, MTU 65520; needs a provider with RC and CM MADs), like Linux's "
                    + "sysfs mode; a change applies at once, without restarting the interface.",
            options = {@Option(label = "datagram", value = "datagram"), @Option(label = "connected", value = "connected")})
    String mode() default "datagram";

    @AttributeDefinition(name = "Create broadcast group",
            description = "Create the broadcast group when it does not exist (RFC 4391 §5 allows the first node to).")
    boolean createBroadcastGroup() default true;
}
