package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.JsonText;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;

/**
 * Gogo commands of the hardware provider, scope {@code verbs} (the loopback provider's commands
 * use scope {@code fabric}): {@code verbs:devices}, {@code verbs:port}.
 */
@Component(service = VerbsCommands.class, property = {"osgi.command.scope=verbs", "osgi.command.function=devices",
        "osgi.command.function=port",
        "ipoib.command.completion=devices --json",
        "ipoib.command.completion=port <device> <port> --json"})
public final class VerbsCommands {
    private final VerbsProvider provider;

    @Activate
    public VerbsCommands(@Reference(target = "(" + VerbsProvider.NAME_PROPERTY + "=fabric)") VerbsProvider provider) {
        this.provider = provider;
    }

    @Descriptor("the RDMA devices and ports of the hardware provider, or why there are none")
    public String devices(@Descriptor("[--json]") String... args) {
        boolean json = JsonText.wanted(args);
        if (JsonText.withoutFlag(args).length != 0) {
            throw new IllegalArgumentException("verbs:devices: wrong arguments '" + String.join(" ", args)
                    + "'\nusage: verbs:devices [--json]");
        }
        return json ? DeviceReport.devicesJson(provider) : DeviceReport.devices(provider);
    }

    @Descriptor("attributes, GIDs and P_Keys of one port of the hardware provider")
    public String port(@Descriptor("<device, e.g. mlx5_0> <port number, from 1> [--json]") String... args) {
        String[] words = JsonText.withoutFlag(args);
        if (words.length != 2) {
            throw new IllegalArgumentException(USAGE);
        }
        int number;
        try {
            number = Integer.parseInt(words[1].strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("invalid port '" + words[1] + "': allowed a port number from 1; " + USAGE);
        }
        return JsonText.wanted(args) ? DeviceReport.portJson(provider, words[0], number)
                : DeviceReport.port(provider, words[0], number);
    }

    private static final String USAGE = "usage: verbs:port <device> <port> [--json], e.g. verbs:port mlx5_0 1";
}
