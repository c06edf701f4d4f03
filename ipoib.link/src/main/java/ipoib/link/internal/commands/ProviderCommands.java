package ipoib.link.internal.commands;

import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.JsonText;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.felix.service.command.Descriptor;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** {@code ipoib:providers}: every verbs provider, its state, devices and ports. */
@Component(service = ProviderCommands.class, property = {
        "osgi.command.scope=ipoib",
        "osgi.command.function=providers",
        "ipoib.command.completion=providers --json"})
public final class ProviderCommands {
    private final List<VerbsProvider> providers = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addProvider(VerbsProvider provider) {
        providers.add(provider);
    }

    void removeProvider(VerbsProvider provider) {
        providers.remove(provider);
    }

    @Descriptor("list the verbs providers: name, state and reason, devices and their ports")
    public String providers(@Descriptor("[--json]") String... args) {
        List<VerbsProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparing(VerbsProvider::name));
        if (args.length == 1 && args[0].equals(JsonText.FLAG)) {
            return json(sorted);
        }
        if (args.length != 0) {
            throw LinkCommands.usage("ipoib:providers [--json]",
                    "ipoib:providers: wrong arguments '" + String.join(" ", args) + "'");
        }
        if (sorted.isEmpty()) {
            return "no verbs providers (start ipoib.verbs.loopback or ipoib.verbs.fabric)";
        }
        StringBuilder out = new StringBuilder();
        for (VerbsProvider p : sorted) {
            var status = p.status();
            out.append(p.name()).append(": ").append(status.available() ? "available" : "unavailable")
                    .append(" (").append(status.reason()).append(")\n");
            for (Device d : p.devices()) {
                out.append("    ").append(d.name()).append("  node GUID ").append(d.nodeGuid()).append('\n');
                for (Port port : d.ports()) {
                    PortAttributes a = port.attributes();
                    out.append(String.format("        port %d  %s  LID %s  MTU %s  P_Keys %s%n", port.number(),
                            a.state(), a.lid(), a.activeMtu(), port.pkeyTable()));
                }
            }
        }
        return out.toString();
    }

    /** {@code ipoib:providers --json}: {"providers": [...]}, the fields of the text listing. */
    static String json(List<VerbsProvider> sorted) {
        List<Map<String, Object>> records = new ArrayList<>();
        for (VerbsProvider p : sorted) {
            var status = p.status();
            List<Map<String, Object>> devices = new ArrayList<>();
            for (Device d : p.devices()) {
                List<Map<String, Object>> ports = new ArrayList<>();
                for (Port port : d.ports()) {
                    PortAttributes a = port.attributes();
                    ports.add(JsonText.record("port", port.number(), "state", a.state(), "lid", a.lid(),
                            "mtu", a.activeMtu().bytes(), "pkeys", port.pkeyTable().keys()));
                }
                devices.add(JsonText.record("name", d.name(), "nodeGuid", d.nodeGuid(), "ports", ports));
            }
            records.add(JsonText.record("name", p.name(), "available", status.available(), "reason", status.reason(),
                    "devices", devices));
        }
        return JsonText.of(JsonText.record("providers", records));
    }
}
