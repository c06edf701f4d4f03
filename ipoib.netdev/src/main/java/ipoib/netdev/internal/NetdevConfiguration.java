package ipoib.netdev.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** One bridged interface (factory PID {@value NetdevComponent#FACTORY_PID}), written by {@code ipoib:netdev add}. */
@ObjectClassDefinition(name = "ipoib netdev",
        description = "An IPoIB interface exported to the Linux kernel as a TUN network device, optionally in a "
                + "network namespace.")
@interface NetdevConfiguration {

    @AttributeDefinition(name = "Interface", description = "The IPoIB interface (ipoib:links), e.g. ib0_1_ffff.")
    String link();

    @AttributeDefinition(name = "Interface filter",
            description = "Service filter of the interface; ipoib:netdev add writes (ipoib.link=<link>).")
    String link_target() default "(ipoib.link=*)";

    @AttributeDefinition(name = "Device name",
            description = "The Linux device name (1..15 of A-Z a-z 0-9 _ . -); empty: the interface name.")
    String device() default "";

    @AttributeDefinition(name = "Network namespace",
            description = "A named namespace (ip netns) for the device, created when missing and then removed with "
                    + "this configuration (or at exit); empty: the appliance's own namespace.")
    String netns() default "";

    @AttributeDefinition(name = "Addresses",
            description = "Addresses the kernel gets on the device, address/prefix (10.0.0.1/24, fd00::1/64).",
            required = false)
    String[] addresses() default {};

    @AttributeDefinition(name = "Offload",
            description = "Checksum and TCP segmentation offload, as a NIC's (ethtool -K <dev> tx on tso on): the "
                    + "kernel hands over TCP segments of up to 64 KiB and leaves their checksums to the device; the "
                    + "bridge cuts them to the MTU and sends the segments of one as one post list. false: one "
                    + "packet of at most the MTU per read, checksums made by the kernel.")
    boolean offload() default true;
}
