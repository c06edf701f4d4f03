package ipoib.verbs.loopback.internal;

import ipoib.api.Gid;
import ipoib.api.config.ConfigurationRules;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.api.verbs.VerbsProvider;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.fabric.PartitionConfig;
import ipoib.verbs.loopback.ibsim.SimulatorServer;
import ipoib.runtime.CaptureFiles;
import ipoib.runtime.ConfigCheck;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import java.util.Map;
import ipoib.runtime.config.LastGoodConfiguration;
import org.osgi.framework.BundleContext;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Modified;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The loopback verbs provider: builds the fabric from its configuration (or the defaults),
 * registers it as {@code VerbsProvider} with {@code ipoib.provider=loopback}, and brings the
 * fabric's shell commands. A new valid configuration rebuilds the fabric: links see the provider
 * go and come back, and heal by themselves. A configuration with a bad value is refused with one
 * log line naming the property, the value and the range, and the running fabric stays as it is
 * (as ARP and ND keep their previous settings).
 */
@Component(configurationPid = LoopbackProvider.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = ConfigurationRules.class, property = ConfigurationRules.PID_PROPERTY + "=" + LoopbackProvider.PID,
        immediate = true)
@Designate(ocd = LoopbackConfiguration.class)
public final class LoopbackProvider implements ConfigurationRules {

    /** Configuration PID. */
    public static final String PID = "ipoib.verbs.loopback";

    private final BundleContext context;
    private final Logger log;
    /** The running fabric and its registrations; null until a valid configuration arrives. */
    private Running running;
    /** The stored configuration in force; a refused one is written back to it (or deleted: the defaults). */
    private final LastGoodConfiguration lastGood;
    private final ConfigurationAdmin configurationAdmin;

    /** A started subnet with its provider and shell registrations. */
    private record Running(LoopbackSubnet subnet, FabricCommands shell, ServiceRegistration<VerbsProvider> provider,
                           ServiceRegistration<FabricCommands> commands, ManagementSettings management,
                           SimulatorServer simulator, ServiceRegistration<SimulatorCommands> simulatorCommands) {
        void stop() {
            if (simulator != null) {
                simulator.close(); // its clients detached before the plane goes
            }
            for (ServiceRegistration<?> r : List.of(provider, commands, simulatorCommands)) {
                try {
                    r.unregister();
                } catch (IllegalStateException alreadyGone) {
                    // The framework is stopping.
                }
            }
            shell.stopCapture();
            subnet.close();
        }
    }

    @Activate
    public LoopbackProvider(BundleContext context, LoopbackConfiguration configuration, Map<String, Object> properties,
                            @Reference ConfigurationAdmin configurationAdmin,
                            @Reference(service = LoggerFactory.class) Logger log) {
        this.context = context;
        this.log = log;
        this.configurationAdmin = configurationAdmin;
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        apply(configuration, properties);
    }

    @Modified
    void modified(LoopbackConfiguration configuration, Map<String, Object> properties) {
        apply(configuration, properties);
    }

    /** The property ranges of {@link LoopbackConfiguration}, read from the metatype bnd generates from it. */
    private static final ConfigCheck CHECK = ConfigCheck.of(LoopbackConfiguration.class);

    /**
     * Checks the raw properties against the metatype before DS's conversion can hide a bad value
     * (a Long ≥ 2^32 truncated to an int, text for a number).
     *
     * @throws IllegalArgumentException naming every bad property, its value and what is allowed
     */
    static void checkProperties(Map<String, ?> properties) {
        String problems = CHECK.problems(properties);
        if (problems != null) {
            throw new IllegalArgumentException(problems);
        }
    }

    /** Validates a configuration and, when valid, replaces the running fabric with one built from it. */
    private synchronized void apply(LoopbackConfiguration given, Map<String, Object> componentProperties) {
        // The service property that files this component as the PID's rules is not configuration.
        Map<String, Object> properties = new java.util.HashMap<>(componentProperties);
        properties.remove(ConfigurationRules.PID_PROPERTY);
        if (running != null && lastGood.isInForce(properties)) {
            return; // the configuration in force, stored again after a refusal: the fabric keeps running
        }
        FabricConfig config;
        ManagementSettings management;
        LoopbackConfiguration configuration = given;
        try {
            checkProperties(properties);
            configuration = withFrameworkDefaults(given, properties, storedKeys(properties));
            config = toFabricConfig(configuration);
            management = ManagementSettings.of(configuration);
            String runtime = running == null ? null : management.refusalToReplace(running.management());
            if (runtime != null) {
                throw new IllegalArgumentException(runtime);
            }
        } catch (IllegalArgumentException e) {
            lastGood.refused(properties, e.getMessage());
            return;
        }
        lastGood.accepted(properties);
        if (running != null) {
            running.stop();
            running = null;
        }
        LoopbackSubnet subnet = new LoopbackSubnet(config, configuration.saTimeoutMillis(), configuration.saRetries(),
                LoopbackSubnet.UNTRUSTED_SM_KEY, management.serves(), management.externalSm());
        subnet.subnetAdministrator().setSendOnlyFullMember(configuration.saSendOnlyFullMember());
        subnet.fabric().receiveBufferHold(java.time.Duration.ofNanos(configuration.receiveBufferHoldMicros() * 1000L));
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "fabric");
        props.put("osgi.command.function", FabricCommands.FUNCTIONS);
        props.put("ipoib.command.completion", FabricCommands.COMPLETION);
        FabricCommands shell = new FabricCommands(subnet.fabric(), subnet.subnetAdministrator(),
                () -> CaptureFiles.fromProperties(context::getProperty));
        ServiceRegistration<FabricCommands> commands = context.registerService(FabricCommands.class, shell, props);
        ServiceRegistration<VerbsProvider> provider = context.registerService(VerbsProvider.class, subnet,
                new Hashtable<>(Map.of(VerbsProvider.NAME_PROPERTY, "loopback")));
        SimulatorServer simulator = startSimulator(management, subnet);
        ServiceRegistration<SimulatorCommands> simulatorCommands = context.registerService(SimulatorCommands.class,
                new SimulatorCommands(management, simulator),
                new Hashtable<>(Map.of("osgi.command.scope", "fabric", "osgi.command.function", "simulator",
                        "ipoib.command.completion", "simulator --json")));
        running = new Running(subnet, shell, provider, commands, management, simulator, simulatorCommands);
        log.info("loopback fabric up: " + (config.topology().isEmpty() ? "" : "topology " + config.topology() + ", ")
                + config.hcas() + " HCAs x " + config.portsPerHca() + " ports, MTU "
                + config.mtu() + ", " + config.partitions().size() + " partitions, seed " + config.seed()
                + (management.externalSm() ? ", sm=external (the SM attached through the simulator server manages it)"
                        : ""));
    }

    /** ibsim's protocol on the subnet's management plane, or null when off or when its sockets cannot be bound. */
    private SimulatorServer startSimulator(ManagementSettings management, LoopbackSubnet subnet) {
        if (!management.serves()) {
            return null;
        }
        try {
            return ManagementSettings.LOCAL.equals(management.simulator())
                    ? SimulatorServer.local(management.simulatorName(), subnet.managementPlane(), log::info, log::warn)
                    : SimulatorServer.udp(management.simulatorPort(), subnet.managementPlane(), log::info, log::warn);
        } catch (java.io.IOException | IllegalArgumentException e) {
            log.error("simulator server not started: " + e.getMessage() + (ManagementSettings.LOCAL.equals(
                    management.simulator()) ? " (another appliance or ibsim serves this name: choose another "
                    + "simulatorName)" : " (choose another simulatorPort)")
                    + (management.externalSm() ? "; with sm=external no SM can attach, every port stays without a LID"
                    : ""));
            return null;
        }
    }

    /**
     * Framework property {@value #OPENSM_PROPERTY} (set by {@code ./ipoib --opensm}): the
     * simulator socket name; the configuration's defaults become sm=external and simulator=local
     * on that name. Framework property {@value #TOPOLOGY_PROPERTY} ({@code --topology FILE}): the
     * default topology. A property the stored configuration sets keeps its value.
     */
    static final String OPENSM_PROPERTY = "ipoib.opensm";
    static final String TOPOLOGY_PROPERTY = "ipoib.topology";

    private LoopbackConfiguration withFrameworkDefaults(LoopbackConfiguration c, Map<String, ?> properties,
                                                        java.util.Set<String> stored) {
        String opensm = context.getProperty(OPENSM_PROPERTY);
        String topology = context.getProperty(TOPOLOGY_PROPERTY);
        if ((opensm == null || opensm.isBlank()) && (topology == null || topology.isBlank())) {
            return c;
        }
        Map<String, Object> effective = new java.util.HashMap<>(properties);
        if (opensm != null && !opensm.isBlank()) {
            if (!stored.contains("sm")) {
                effective.put("sm", ManagementSettings.EXTERNAL);
            }
            if (!stored.contains("simulator")) {
                effective.put("simulator", ManagementSettings.LOCAL);
            }
            if (!stored.contains("simulatorName")) {
                effective.put("simulatorName", opensm.strip());
            }
        }
        if (topology != null && !topology.isBlank() && !stored.contains("topology")) {
            effective.put("topology", topology.strip());
        }
        return ipoib.runtime.ConfigValues.of(LoopbackConfiguration.class, effective);
    }

    /** The keys the stored configuration sets (DS adds the defaults of the others); none without one. */
    private java.util.Set<String> storedKeys(Map<String, ?> properties) {
        Object pid = properties.get("service.pid");
        if (pid == null) {
            return java.util.Set.of();
        }
        try {
            org.osgi.service.cm.Configuration[] found = configurationAdmin.listConfigurations("(service.pid=" + pid + ")");
            if (found == null || found.length == 0 || found[0].getProperties() == null) {
                return java.util.Set.of();
            }
            return new java.util.HashSet<>(java.util.Collections.list(found[0].getProperties().keys()));
        } catch (java.io.IOException | org.osgi.framework.InvalidSyntaxException e) {
            return java.util.Set.of();
        }
    }

    /**
     * The rules of the {@value #PID} configuration, for a check before it is stored: those of
     * {@link #refusal(Map)}, and a subnet manager that cannot change while the fabric runs.
     */
    @Override
    public synchronized String refusal(String pid, Map<String, ?> properties) {
        try {
            checkProperties(properties);
            // What would be stored, with the framework's defaults for what it leaves out (as apply does).
            LoopbackConfiguration c = withFrameworkDefaults(ipoib.runtime.ConfigValues.of(LoopbackConfiguration.class,
                    properties), properties, properties.keySet());
            toFabricConfig(c);
            ManagementSettings settings = ManagementSettings.of(c);
            return running == null ? null : settings.refusalToReplace(running.management());
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** Why a configuration would be refused, or null: the metatype, then the forms and the topology's rules. */
    static String refusal(Map<String, ?> properties) {
        try {
            checkProperties(properties);
            LoopbackConfiguration c = ipoib.runtime.ConfigValues.of(LoopbackConfiguration.class, properties);
            toFabricConfig(c);
            ManagementSettings.of(c);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    static FabricConfig toFabricConfig(LoopbackConfiguration c) {
        long prefix;
        try {
            Gid gid = Gid.parse(c.subnetPrefix());
            if (gid.interfaceId() != 0) {
                throw new IllegalArgumentException("lower 64 bits must be zero");
            }
            prefix = gid.prefix();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid loopback property 'subnetPrefix' value '" + c.subnetPrefix()
                    + "': allowed a /64 prefix in IPv6 notation, e.g. fe80::");
        }
        long guidBase;
        try {
            guidBase = Guid.parse(c.nodeGuidBase()).value();
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid loopback property 'nodeGuidBase' value '" + c.nodeGuidBase()
                    + "': allowed a GUID such as 0x0002c90300000000");
        }
        IbMtu mtu;
        try {
            mtu = IbMtu.fromBytes(c.mtu());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid loopback property 'mtu' value " + c.mtu()
                    + ": allowed 256, 512, 1024, 2048, 4096");
        }
        Rate rate;
        try {
            rate = Rate.fromCode(c.rate());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid loopback property 'rate' value " + c.rate()
                    + ": allowed an IBA rate code 2..18 (3 = 10 Gb/s)");
        }
        List<PartitionConfig> partitions = new ArrayList<>();
        for (String line : c.partitions()) {
            if (line != null && !line.isBlank()) {
                try {
                    partitions.add(PartitionConfig.parse(line));
                } catch (IllegalArgumentException e) {
                    throw new IllegalArgumentException("invalid loopback property 'partitions': " + e.getMessage());
                }
            }
        }
        // The ranges are declared once, in LoopbackConfiguration's metatype.
        CHECK.check(Map.of("saTimeoutMillis", c.saTimeoutMillis(), "saRetries", c.saRetries(),
                "receiveBufferHoldMicros", c.receiveBufferHoldMicros()));
        return new FabricConfig(c.hcas(), c.portsPerHca(), prefix, guidBase, mtu, rate, partitions, c.seed(), c.lmc(),
                c.topology());
    }

    @Deactivate
    synchronized void deactivate() {
        if (running != null) {
            running.stop();
            running = null;
        }
    }
}
