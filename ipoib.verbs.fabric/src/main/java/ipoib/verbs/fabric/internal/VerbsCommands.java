package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.VerbsProvider;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Gogo commands of the hardware provider, scope {@code verbs} (the loopback provider's commands
 * use scope {@code fabric}): {@code verbs:devices}, {@code verbs:port}.
 */
@Component(service = VerbsCommands.class, property = {"osgi.command.scope=verbs", "osgi.command.function=devices",
        "osgi.command.function=port"})
public final class VerbsCommands {
    private final VerbsProvider provider;

    @Activate
    public VerbsCommands(@Reference(target = "(" + VerbsProvider.NAME_PROPERTY + "=fabric)") VerbsProvider provider) {
        this.provider = provider;
    }

    @Descriptor("the RDMA devices and ports of the hardware provider, or why there are none")
    public String devices() {
        return DeviceReport.devices(provider);
    }

    @Descriptor("attributes, GIDs and P_Keys of one port of the hardware provider")
    public String port(@Descriptor("device name, e.g. mlx5_0") String device,
                       @Descriptor("port number, from 1") String port) {
        int number;
        try {
            number = Integer.parseInt(port.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid port '" + port + "': allowed a port number from 1; " + USAGE);
        }
        return DeviceReport.port(provider, device, number);
    }

    @Descriptor("usage of verbs:port")
    public String port() {
        throw new IllegalArgumentException(USAGE);
    }

    private static final String USAGE = "usage: verbs:port <device> <port>, e.g. verbs:port mlx5_0 1";
}
