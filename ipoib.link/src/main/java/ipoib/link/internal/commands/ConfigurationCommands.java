package ipoib.link.internal.commands;

import static ipoib.link.internal.commands.LinkCommands.usage;

import ipoib.api.PKey;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkState;
import ipoib.link.internal.IpoibLinkComponent;
import ipoib.link.internal.LinkClaims;
import ipoib.link.internal.LinkConfig;
import ipoib.link.internal.LinkEngine;
import ipoib.link.internal.LinkRules;
import ipoib.runtime.Numbers;
import ipoib.runtime.config.StoredProperties;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Dictionary;
import java.util.Hashtable;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;

/**
 * {@code ipoib:create}, {@code ipoib:delete}, {@code ipoib:mode} and {@code ipoib:await}: interfaces as
 * {@value IpoibLinkComponent#FACTORY_PID} factory configurations in Configuration Admin, checked
 * as the component will check them, and the wait until the configured interfaces are UP.
 */
final class ConfigurationCommands {
    private final ConfigurationAdmin configurationAdmin;
    private final LinkRules rules;
    private final List<IpoibLink> links;

    /** @param links the interfaces, live */
    ConfigurationCommands(ConfigurationAdmin configurationAdmin, LinkRules rules, List<IpoibLink> links) {
        this.configurationAdmin = configurationAdmin;
        this.rules = rules;
        this.links = links;
    }

    private List<IpoibLink> sorted() {
        return LinkCommands.sorted(links);
    }

    String create(String... args)
            throws IOException {
        String usage = "ipoib:create <device> <port> <pkey> [name]";
        if (args.length < 3 || args.length > 4) {
            throw usage(usage, args.length < 3 ? "device, port and P_Key are required" : "too many arguments");
        }
        String device = args[0];
        String port = args[1];
        String pkey = args[2];
        String[] name = java.util.Arrays.copyOfRange(args, 3, args.length);
        int portNumber;
        try {
            portNumber = (int) Numbers.parse("port", port, 1, 254);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        PKey key;
        try {
            key = PKey.parse(pkey);
        } catch (IllegalArgumentException e) {
            throw usage(usage, e.getMessage());
        }
        String linkName = name.length == 1 ? name[0] : LinkConfig.defaultName(LinkConfig.deviceIndex(device), portNumber, key);
        for (IpoibLink l : links) {
            if (l.name().equals(linkName)) {
                throw usage(usage, "an interface named '" + linkName + "' exists");
            }
        }
        String conflict = LinkClaims.INSTANCE.conflict(null, linkName, device, portNumber, key);
        if (conflict != null) {
            throw usage(usage, conflict);
        }
        Dictionary<String, Object> props = new Hashtable<>();
        props.put("name", linkName);
        props.put("device", device);
        props.put("port", portNumber);
        props.put("pkey", key.toString());
        // Checked like the component will, so that a bad value is refused here and never stored.
        String refusal = rules.refusal(null, java.util.Collections.list(props.keys()).stream()
                .collect(java.util.stream.Collectors.toMap(k -> k, props::get)));
        if (refusal != null) {
            throw usage(usage, refusal);
        }
        Configuration configuration = configurationAdmin.getFactoryConfiguration(IpoibLinkComponent.FACTORY_PID, linkName, "?");
        configuration.update(props);
        return "created " + linkName + " on " + device + " port " + portNumber + " P_Key " + key;
    }

    String delete(String... args) throws IOException, InvalidSyntaxException {
        if (args.length != 1) {
            throw usage("ipoib:delete <interface>", "expected one interface name");
        }
        String name = args[0];
        Configuration c = configurationOf(name);
        if (c != null) {
            c.delete();
            return "deleted " + name;
        }
        throw usage("ipoib:delete <interface>", "no configured interface '" + name + "'");
    }

    /**
     * Shows an interface's mode, or sets it (Linux's sysfs mode) by writing the {@code mode}
     * property of its configuration: the interface switches without a restart.
     */
    String mode(String... args) throws IOException, InvalidSyntaxException {
        String usage = "ipoib:mode <interface> [datagram|connected]";
        if (args.length < 1 || args.length > 2) {
            throw usage(usage, args.length < 1 ? "an interface name is required" : "too many arguments");
        }
        IpoibLink live = links.stream().filter(l -> l.name().equals(args[0])).findFirst().orElse(null);
        if (args.length == 1) {
            if (!(live instanceof LinkEngine engine)) {
                throw usage(usage, "no interface '" + args[0] + "'");
            }
            return engine.name() + ": " + engine.mode() + ", mtu " + engine.mtu();
        }
        String mode = args[1];
        if (!mode.equals("datagram") && !mode.equals("connected")) {
            throw usage(usage, "invalid mode '" + mode + "': allowed datagram or connected");
        }
        Configuration c = configurationOf(args[0]);
        if (c == null) {
            throw usage(usage, "no configured interface '" + args[0] + "'");
        }
        Dictionary<String, Object> props = c.getProperties();
        props.put("mode", mode);
        c.update(props);
        return args[0] + ": mode " + mode + " configured";
    }

    /**
     * The factory configuration of an interface: the one whose name, as the component derives it
     * (the {@code name} property, else {@code ibX_Y_Z} from device, port and P_Key), is {@code name}.
     */
    private Configuration configurationOf(String name) throws IOException, InvalidSyntaxException {
        Configuration[] configurations = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + IpoibLinkComponent.FACTORY_PID + ")");
        if (configurations != null) {
            for (Configuration c : configurations) {
                if (name.equals(LinkConfig.nameOf(StoredProperties.of(c.getProperties())))) {
                    return c;
                }
            }
        }
        return null;
    }

    String await(String... args)
            throws InterruptedException {
        String usage = "ipoib:await [interface|all] [timeout seconds, default 10]";
        if (args.length > 2) {
            throw usage(usage, "too many arguments");
        }
        String which = args.length > 0 ? args[0] : "all";
        long seconds = 10;
        if (args.length == 2) {
            try {
                seconds = Numbers.parse("timeout (seconds)", args[1], 1, 3600);
            } catch (IllegalArgumentException e) {
                throw usage(usage, e.getMessage());
            }
        }
        long deadline = System.nanoTime() + seconds * 1_000_000_000L;
        boolean settled = false;
        while (true) {
            // A configuration stored but not yet handled by its component (ipoib:mode a moment ago) is
            // waited for, and then what its component handed the interface (the mode switch).
            List<String> changing = changesNotInEffect(which);
            if (changing.isEmpty() && !settled) {
                settle();
                settled = true;
            } else if (!changing.isEmpty()) {
                settled = false;
            }
            // 'all' includes the interfaces configured (ipoib:create) whose component is not there yet.
            // Read before the interfaces: one that appears in between is then in one list or the other.
            List<String> pending = which.equals("all") ? configuredWithoutLink() : List.of();
            List<IpoibLink> selected = sorted().stream().filter(l -> which.equals("all") || l.name().equals(which)).toList();
            if (selected.isEmpty() && !which.equals("all")) {
                if (System.nanoTime() > deadline) {
                    throw usage(usage, "no interface '" + which + "'");
                }
            } else if (!selected.isEmpty() && pending.isEmpty() && changing.isEmpty() && settled
                    && selected.stream().allMatch(l -> l.state() == LinkState.UP)) {
                return selected.stream().map(l -> l.name() + " UP").reduce((a, b) -> a + "\n" + b).orElse("");
            }
            if (System.nanoTime() > deadline) {
                if (selected.isEmpty() && pending.isEmpty() && changing.isEmpty()) {
                    throw new IllegalStateException("no IPoIB interfaces within " + seconds
                            + " s (create one with ipoib:create)");
                }
                StringBuilder why = new StringBuilder("not UP within " + seconds + " s:");
                for (String name : changing) {
                    why.append("\n  ").append(name).append(": a configuration change has not taken effect");
                }
                for (String name : pending) {
                    why.append("\n  ").append(name).append(" configured, but no interface yet (see scr:info "
                            + IpoibLinkComponent.FACTORY_PID + ")");
                }
                for (IpoibLink l : selected) {
                    if (l.state() != LinkState.UP) {
                        why.append("\n  ").append(l.name()).append(' ').append(l.state()).append(" (")
                                .append(l.stateReason()).append(')');
                    }
                }
                throw new IllegalStateException(why.toString());
            }
            Thread.sleep(20);
        }
    }

    /**
     * Lets every interface's control loop handle what was handed to it before this command (a port
     * event raised by the previous command of a script), so that a state read next is not one the
     * interface is about to leave: "fabric:down; fabric:up; ipoib:await" waits for the new UP.
     */
    private void settle() {
        for (IpoibLink l : links) {
            if (l instanceof LinkEngine engine) {
                try {
                    engine.control().run(() -> { }, 5, TimeUnit.SECONDS);
                } catch (RuntimeException e) {
                    // A closed or stuck loop: its state is reported as it is.
                }
            }
        }
    }

    /**
     * Interfaces (all, or the one named) whose stored configuration their component has not
     * handled yet: Configuration Admin delivers an update after it stored it.
     */
    private List<String> changesNotInEffect(String which) {
        Configuration[] configurations;
        try {
            configurations = configurationAdmin.listConfigurations(
                    "(service.factoryPid=" + IpoibLinkComponent.FACTORY_PID + ")");
        } catch (IOException | InvalidSyntaxException e) {
            return List.of();
        }
        List<String> changing = new ArrayList<>();
        for (Configuration c : configurations == null ? new Configuration[0] : configurations) {
            var stored = StoredProperties.of(c.getProperties());
            String name = LinkConfig.nameOf(stored);
            if ((which.equals("all") || which.equals(name)) && IpoibLinkComponent.HANDLED.pending(c.getPid(), stored)) {
                changing.add(name == null ? c.getPid() : name);
            }
        }
        changing.sort(null);
        return changing;
    }

    /**
     * Names of ipoib.link configurations that name their interface and have no interface yet. An
     * empty name (the metatype's default) names none: the component derives it, as for no name.
     */
    List<String> configuredWithoutLink() {
        return withoutLink(properties -> {
            Object name = properties.get("name");
            return name == null || name.toString().isBlank() ? null : name.toString();
        });
    }

    /**
     * Names of every ipoib.link configuration without its interface, each named as its component
     * names it ({@link LinkConfig#nameOf}: the configured name, else {@code ibX_Y_Z}), for
     * {@code ipoib:links}.
     */
    List<String> configuredNotStarted() {
        return withoutLink(LinkConfig::nameOf);
    }

    /** The names {@code naming} gives the configurations (null: none) that have no interface and are not refused. */
    private List<String> withoutLink(java.util.function.Function<java.util.Map<String, Object>, String> naming) {
        Configuration[] configurations;
        try {
            configurations = configurationAdmin.listConfigurations(
                    "(service.factoryPid=" + IpoibLinkComponent.FACTORY_PID + ")");
        } catch (IOException | InvalidSyntaxException e) {
            return List.of();
        }
        if (configurations == null) {
            return List.of();
        }
        List<String> pending = new ArrayList<>();
        for (Configuration c : configurations) {
            String name = c.getProperties() == null ? null : naming.apply(StoredProperties.of(c.getProperties()));
            // A refused configuration (ipoib:links shows why) is not waited for: it cannot come up.
            boolean refused = LinkClaims.INSTANCE.refusals().stream().anyMatch(r -> r.name().equals(name));
            if (name != null && !refused && links.stream().noneMatch(l -> l.name().equals(name))) {
                pending.add(name);
            }
        }
        pending.sort(null);
        return pending;
    }
}
