package ipoib.verbs.loopback.internal;

import ipoib.runtime.JsonText;
import ipoib.verbs.loopback.ibsim.SimulatorServer;
import java.util.Map;
import org.apache.felix.service.command.Descriptor;

/** {@code fabric:simulator}: the ibsim protocol server, its clients and counters, and who manages the subnet. */
public final class SimulatorCommands {
    private static final String USAGE = "usage: fabric:simulator [--json]";
    private final ManagementSettings management;
    private final SimulatorServer server;

    SimulatorCommands(ManagementSettings management, SimulatorServer server) {
        this.management = management;
        this.server = server;
    }

    @Descriptor("show the simulator server (ibsim's protocol for OpenSM and infiniband-diags), its clients and "
            + "who manages the subnet")
    public String simulator(@Descriptor("[--json]") String... args) {
        if (JsonText.withoutFlag(args).length != 0) {
            throw new IllegalArgumentException("fabric:simulator: wrong arguments '" + String.join(" ", args) + "'\n"
                    + USAGE);
        }
        return JsonText.wanted(args) ? json() : text();
    }

    private String text() {
        StringBuilder out = new StringBuilder("sm=" + management.sm() + (management.externalSm()
                ? " (the SM attached through the simulator server manages the subnet)"
                : " (the emulated SM and SA manage the subnet)") + "\n");
        if (server == null) {
            out.append(management.serves() ? "simulator server: not running (see the log: its sockets could not be bound)"
                    : "simulator server: off (loopback property simulator=local or udp starts it)");
            return out.toString();
        }
        SimulatorServer.Counters c = server.counters();
        out.append("simulator server on ").append(server.describe()).append("\n  clients attach with ")
                .append(server.clientEnvironment()).append(" LD_PRELOAD=libumad2sim.so (./ipoib diag TOOL sets both)\n");
        for (String client : server.clients()) {
            out.append("  ").append(client).append('\n');
        }
        out.append(String.format("  MADs from clients %d, to clients %d, malformed datagrams dropped %d, "
                + "clients refused %d, vanished %d, MADs for detached clients %d", c.madsFromClients(), c.madsToClients(),
                c.malformedDropped(), c.clientsRefused(), c.clientsVanished(), c.madsForDetachedClients()));
        return out.toString();
    }

    /** The same facts as one object; {@code server} is null unless it runs. */
    private String json() {
        Map<String, Object> running = null;
        if (server != null) {
            SimulatorServer.Counters c = server.counters();
            running = JsonText.record("address", server.describe(), "clientEnvironment", server.clientEnvironment(),
                    "clients", server.clients(), "counters", JsonText.record("madsFromClients", c.madsFromClients(),
                            "madsToClients", c.madsToClients(), "malformedDropped", c.malformedDropped(),
                            "clientsRefused", c.clientsRefused(), "clientsVanished", c.clientsVanished(),
                            "madsForDetachedClients", c.madsForDetachedClients()));
        }
        String state = server != null ? "running" : management.serves() ? "not_running" : "off";
        return JsonText.of(JsonText.record("sm", management.sm(), "simulator", management.simulator(),
                "serverState", state, "server", running));
    }
}
