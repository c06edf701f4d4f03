package ipoib.console.internal;

import ipoib.api.link.IpoibLink;
import ipoib.api.mcast.MulticastService;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.PortAttributes;
import ipoib.api.verbs.VerbsProvider;
import ipoib.runtime.JsonText;
import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.felix.inventory.Format;
import org.apache.felix.inventory.InventoryPrinter;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;
import org.osgi.service.component.annotations.ReferencePolicyOption;

/**
 * The stack in the Felix status dump ({@code org.apache.felix.inventory}: the Web Console's
 * Status page, {@code /system/console/config/configuration-status.txt} and its zip, and alone at
 * {@code /system/console/status-ipoib.txt} and {@code .json}): the interfaces, counters,
 * neighbours, groups and refused configurations of the IPoIB page and every verbs provider's ports.
 */
@Component(service = InventoryPrinter.class, property = {
        InventoryPrinter.NAME + "=ipoib",
        InventoryPrinter.TITLE + "=IPoIB",
        InventoryPrinter.FORMAT + "=TEXT",
        InventoryPrinter.FORMAT + "=JSON"})
public final class StackInventory implements InventoryPrinter {

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<IpoibLink> links;

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    private volatile List<VerbsProvider> providers;

    @Reference
    private Resolvers resolvers;

    @Reference
    private VerdictBoard verdicts;

    @Reference(cardinality = ReferenceCardinality.OPTIONAL, policy = ReferencePolicy.DYNAMIC,
            policyOption = ReferencePolicyOption.GREEDY)
    private volatile MulticastService multicast;

    @Override
    public void print(PrintWriter out, Format format, boolean isZip) {
        Map<String, Table> tables = new LinkedHashMap<>(StackTables.of(links, resolvers.byFamily().values(), multicast));
        Table ports = ports(providers);
        tables.put(ports.key(), ports);
        Table refused = RefusedTable.of(verdicts.standing());
        tables.put(refused.key(), refused);
        if (format == Format.JSON) {
            Map<String, Object> json = new LinkedHashMap<>();
            tables.forEach((key, table) -> json.put(key, table.json()));
            out.print(JsonText.of(json));
            return;
        }
        StringBuilder text = new StringBuilder();
        tables.forEach((key, table) -> table.text(text, key));
        out.print(text);
    }

    /** Every provider's ports: provider, device, port, state, LID, SM LID, MTU. */
    static Table ports(List<VerbsProvider> providers) {
        List<VerbsProvider> sorted = new ArrayList<>(providers);
        sorted.sort(Comparator.comparing(VerbsProvider::name));
        List<List<Object>> rows = new ArrayList<>();
        for (VerbsProvider p : sorted) {
            for (Device d : p.devices()) {
                for (Port port : d.ports()) {
                    PortAttributes a = port.attributes();
                    rows.add(List.of(p.name(), d.name(), port.number(), a.state(), a.lid(), a.smLid(), a.activeMtu()));
                }
            }
        }
        return new Table("ipoib-ports", "ports", Table.columns("provider", "Provider", "device", "Device", "port", "Port",
                "state", "State", "lid", "LID", "smLid", "SM LID", "mtu", "MTU"), rows, "no verbs ports");
    }
}
