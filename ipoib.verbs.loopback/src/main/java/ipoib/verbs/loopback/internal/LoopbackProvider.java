package ipoib.verbs.loopback.internal;

import ipoib.api.Gid;
import ipoib.api.Guid;
import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.ProviderStatus;
import ipoib.api.verbs.VerbsProvider;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.fabric.PartitionConfig;
import java.util.ArrayList;
import java.util.Hashtable;
import java.util.List;
import org.osgi.framework.BundleContext;
import org.osgi.framework.ServiceRegistration;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * The loopback verbs provider: builds the fabric from its configuration (or the defaults),
 * registers it as {@code VerbsProvider} with {@code ipoib.provider=loopback}, and brings the
 * fabric's shell commands. A new configuration rebuilds the fabric: links see the provider go
 * and come back, and heal by themselves.
 */
@Component(configurationPid = LoopbackProvider.PID, configurationPolicy = ConfigurationPolicy.OPTIONAL,
        service = VerbsProvider.class, immediate = true, property = VerbsProvider.NAME_PROPERTY + "=loopback")
@Designate(ocd = LoopbackConfiguration.class)
public final class LoopbackProvider implements VerbsProvider {

    /** Configuration PID. */
    public static final String PID = "ipoib.verbs.loopback";

    private final LoopbackSubnet subnet;
    private final ServiceRegistration<FabricCommands> commands;
    private final FabricCommands shell;

    @Activate
    public LoopbackProvider(BundleContext context, LoopbackConfiguration configuration,
                            @Reference(service = LoggerFactory.class) Logger log) {
        FabricConfig config;
        try {
            config = toFabricConfig(configuration);
        } catch (IllegalArgumentException e) {
            log.error("loopback fabric not started: " + e.getMessage());
            throw e;
        }
        this.subnet = new LoopbackSubnet(config, configuration.saTimeoutMillis(), configuration.saRetries());
        Hashtable<String, Object> props = new Hashtable<>();
        props.put("osgi.command.scope", "fabric");
        props.put("osgi.command.function", FabricCommands.FUNCTIONS);
        this.shell = new FabricCommands(subnet.fabric(), subnet.subnetAdministrator());
        this.commands = context.registerService(FabricCommands.class, shell, props);
        log.info("loopback fabric up: " + config.hcas() + " HCAs x " + config.portsPerHca() + " ports, MTU "
                + config.mtu() + ", " + config.partitions().size() + " partitions, seed " + config.seed());
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
        if (c.saTimeoutMillis() < 10 || c.saTimeoutMillis() > 60_000) {
            throw new IllegalArgumentException("invalid loopback property 'saTimeoutMillis' value "
                    + c.saTimeoutMillis() + ": allowed 10..60000");
        }
        if (c.saRetries() < 1 || c.saRetries() > 20) {
            throw new IllegalArgumentException("invalid loopback property 'saRetries' value " + c.saRetries()
                    + ": allowed 1..20");
        }
        return new FabricConfig(c.hcas(), c.portsPerHca(), prefix, guidBase, mtu, rate, partitions, c.seed());
    }

    @Deactivate
    void deactivate() {
        try {
            commands.unregister();
        } catch (IllegalStateException alreadyGone) {
            // The framework is stopping.
        }
        shell.stopCapture();
        subnet.close();
    }

    @Override
    public String name() {
        return subnet.name();
    }

    @Override
    public ProviderStatus status() {
        return subnet.status();
    }

    @Override
    public List<Device> devices() {
        return subnet.devices();
    }
}
