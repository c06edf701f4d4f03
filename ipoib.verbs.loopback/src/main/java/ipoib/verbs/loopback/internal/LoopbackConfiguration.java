package ipoib.verbs.loopback.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/** Configuration of the loopback fabric (PID {@value LoopbackProvider#PID}). */
@ObjectClassDefinition(name = "ipoib loopback fabric",
        description = "An in-JVM InfiniBand subnet: HCAs, ports, partitions and an emulated SM/SA.")
@interface LoopbackConfiguration {

    @AttributeDefinition(name = "Topology",
            description = "A net file in ibsim's format (Switch/Hca records and their cabled ports, as ibnetdiscover "
                    + "writes them): the subnet's switches, HCAs and cables; its HCAs in file order are the devices "
                    + "loop0, loop1, ... and 'hcas'/'portsPerHca' are ignored. Empty: 'hcas' HCAs on one switch.")
    String topology() default "";

    @AttributeDefinition(name = "HCAs", description = "Number of HCAs (devices loop0, loop1, ...), 1..1024.",
            min = "1", max = "1024")
    int hcas() default 2;

    @AttributeDefinition(name = "Ports per HCA", description = "Ports on each HCA, 1..4.", min = "1", max = "4")
    int portsPerHca() default 1;

    @AttributeDefinition(name = "Subnet prefix", description = "Upper 64 bits of every port GID, in IPv6 notation.")
    String subnetPrefix() default "fe80::";

    @AttributeDefinition(name = "Node GUID base",
            description = "Node GUID of HCA i is base + (i+1)*0x100; its port p has the node GUID + p.")
    String nodeGuidBase() default "0x0002c90300000000";

    @AttributeDefinition(name = "Port MTU", description = "Active MTU of every port, in octets.", options = {
            @Option(label = "256", value = "256"), @Option(label = "512", value = "512"),
            @Option(label = "1024", value = "1024"), @Option(label = "2048", value = "2048"),
            @Option(label = "4096", value = "4096")})
    int mtu() default 2048;

    @AttributeDefinition(name = "Rate", description = "IBA rate code of every port (3 = 10 Gb/s), 2..18.",
            min = "2", max = "18")
    int rate() default 3;

    @AttributeDefinition(name = "Partitions",
            description = "Partition lines in the spirit of OpenSM's partitions.conf, "
                    + "e.g. 'Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;'")
    String[] partitions() default {"Default=0x7fff, ipoib, mtu=4, rate=3, sl=0, Q_Key=0x0b1b, defmember=full : ALL ;"};

    @AttributeDefinition(name = "LMC",
            description = "LID mask control, 0..7: every port answers to 2^LMC LIDs from a base LID that is a multiple "
                    + "of 2^LMC, and the SA answers that many paths per port pair (as OpenSM's -l).",
            min = "0", max = "7")
    int lmc() default 0;

    @AttributeDefinition(name = "Seed", description = "Seed of QPN allocation and fault injection, to replay a run.")
    long seed() default 1;

    @AttributeDefinition(name = "Receive-buffer hold",
            description = "Microseconds a unicast UD sender is held while the destination queue pair has no posted "
                    + "receive buffer, before the datagram is dropped (counted as the receiving port's "
                    + "no-receive-buffer drops), 0..1000000. The fabric stands for InfiniBand's credit-based links: "
                    + "a receiver that keeps up loses nothing. 0 drops at once, as an HCA's UD receiver does.",
            min = "0", max = "1000000")
    int receiveBufferHoldMicros() default 50000;

    @AttributeDefinition(name = "SA timeout", description = "SA client: milliseconds to wait for an answer, 10..60000.",
            min = "10", max = "60000")
    int saTimeoutMillis() default 200;

    @AttributeDefinition(name = "SA retries", description = "SA client: attempts per request, 1..20.",
            min = "1", max = "20")
    int saRetries() default 5;

    @AttributeDefinition(name = "SA SendOnlyFullMember",
            description = "Whether the emulated SA advertises SendOnlyFullMember joins (ClassPortInfo CapabilityMask2 "
                    + "bit 12) and accepts them, as OpenSM 3.3.23 does; false emulates an SM without the support "
                    + "(senders then join as SendOnlyNonMember).")
    boolean saSendOnlyFullMember() default true;

    @AttributeDefinition(name = "Subnet manager",
            description = "Who manages the subnet: 'emulated' (the fabric's own SM and SA) or 'external' (the SM "
                    + "that attaches through the simulator server, e.g. OpenSM: the emulated SM and SA stand down, "
                    + "LIDs, P_Key tables, forwarding tables, groups and paths come from it). Fixed while the fabric "
                    + "runs: set it before start (./ipoib --opensm does).",
            options = {@Option(label = "emulated", value = "emulated"), @Option(label = "external", value = "external")})
    String sm() default "emulated";

    @AttributeDefinition(name = "Simulator server",
            description = "Serve ibsim's client protocol so that OpenSM and infiniband-diags under libumad2sim attach "
                    + "to the fabric: 'off', 'local' (abstract AF_UNIX datagram sockets named after simulatorName, "
                    + "clients set IBSIM_SOCKNAME) or 'udp' (127.0.0.1, ports simulatorPort..simulatorPort+10, "
                    + "clients set IBSIM_SERVER_NAME and IBSIM_SERVER_PORT).",
            options = {@Option(label = "off", value = "off"), @Option(label = "local", value = "local"),
                    @Option(label = "udp", value = "udp")})
    String simulator() default "off";

    @AttributeDefinition(name = "Simulator socket name",
            description = "Base name of the simulator server's abstract sockets (NAME:ctl, NAME:out0..9): "
                    + "a client's IBSIM_SOCKNAME. 1..64 characters: letters, digits, '.', '_', '-'.")
    String simulatorName() default "ipoib";

    @AttributeDefinition(name = "Simulator UDP port",
            description = "Control port of the simulator server in 'udp' mode, 1024..65525; the ten ports after it "
                    + "carry the clients' MADs. A client's IBSIM_SERVER_PORT.", min = "1024", max = "65525")
    int simulatorPort() default 7070;
}
