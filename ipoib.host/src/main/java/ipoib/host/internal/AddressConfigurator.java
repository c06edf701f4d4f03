package ipoib.host.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddresses;
import ipoib.runtime.ConfigCheck;
import ipoib.runtime.ShownValue;
import ipoib.runtime.config.LastGoodConfiguration;
import java.net.InetAddress;
import java.util.LinkedHashMap;
import java.util.Map;
import org.osgi.service.cm.ConfigurationAdmin;
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
 * One interface address per factory configuration: added while the configuration exists. A
 * refused configuration (one WARN line names the property, the value and the form allowed; an
 * address another configuration holds, on any interface, is refused) changes nothing: an update
 * keeps the address in force (and stores it again), a new configuration is deleted.
 */
@Component(configurationPid = AddressConfigurator.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = AddressConfiguration.class, factory = true)
public final class AddressConfigurator {

    /** Factory PID of address configurations. */
    public static final String FACTORY_PID = "ipoib.address";

    private static final ConfigCheck CHECK = ConfigCheck.of(AddressConfiguration.class);

    /** The address each configuration holds, by PID: an address is configured once, on one interface. */
    private static final Map<String, Held> HELD = new LinkedHashMap<>();

    private record Held(String link, InetAddress address) {}

    private final InterfaceAddresses table;
    private final String pid;
    private final LastGoodConfiguration lastGood;
    private Held held;

    @Activate
    public AddressConfigurator(Map<String, Object> properties, @Reference InterfaceAddresses table,
                               @Reference ConfigurationAdmin configurationAdmin,
                               @Reference(service = LoggerFactory.class) Logger log) {
        this.table = table;
        this.pid = String.valueOf(properties.get("service.pid"));
        this.lastGood = new LastGoodConfiguration(log::warn);
        lastGood.admin(configurationAdmin);
        modified(properties);
    }

    /** A new configuration: applied when allowed, else refused with the address in force kept. */
    @Modified
    synchronized void modified(Map<String, Object> properties) {
        String refusal = refusal(pid, properties);
        if (refusal != null) {
            lastGood.refused(properties, refusal);
            return;
        }
        String link = properties.get("link").toString();
        AddressTable.InterfaceAddressSpec spec = AddressTable.parseCidr(properties.get("address").toString());
        Held next = new Held(link, spec.address());
        if (held != null && !held.equals(next)) {
            table.remove(held.link(), held.address());
        }
        synchronized (HELD) {
            HELD.put(pid, next);
        }
        held = next;
        table.add(link, spec.address(), spec.prefixLength(), AddressOrigin.CONFIGURED, null);
        lastGood.accepted(properties);
    }

    /**
     * Why a configuration of {@code pid} (null: not created yet) would be refused, or null: the
     * metatype's types, the forms of interface and address, and an address another configuration holds.
     */
    static String refusal(String pid, Map<String, ?> properties) {
        String problems = CHECK.problems(properties);
        if (problems != null) {
            return problems;
        }
        try {
            link(String.valueOf(properties.get("link")));
            InetAddress address = spec(String.valueOf(properties.get("address"))).address();
            synchronized (HELD) {
                for (Map.Entry<String, Held> e : HELD.entrySet()) {
                    if (!e.getKey().equals(pid) && e.getValue().address().equals(address)) {
                        return "invalid " + FACTORY_PID + " property 'address' value "
                                + ShownValue.of(properties.get("address")) + ": configured already on interface "
                                + e.getValue().link() + " (" + e.getKey() + "); allowed an address no other "
                                + FACTORY_PID + " configuration holds";
                    }
                }
            }
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    static String link(String value) {
        try {
            AddressTable.checkLink(value);
            return value;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + FACTORY_PID + " property 'link' value " + ShownValue.of(value)
                    + ": allowed an interface name of 1..32 characters of A-Z a-z 0-9 _ . -");
        }
    }

    static AddressTable.InterfaceAddressSpec spec(String value) {
        if (value == null || !value.contains("/")) {
            throw new IllegalArgumentException("invalid " + FACTORY_PID + " property 'address' value "
                    + ShownValue.of(value) + ": allowed address/prefix length, e.g. 10.0.0.1/24 or fd00::1/64");
        }
        try {
            return AddressTable.parseCidr(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + FACTORY_PID + " property 'address' value "
                    + ShownValue.of(value) + ": " + ShownValue.cut(e.getMessage())
                    + "; allowed address/prefix length, e.g. 10.0.0.1/24 or fd00::1/64");
        }
    }

    @Deactivate
    synchronized void deactivate() {
        synchronized (HELD) {
            HELD.remove(pid);
        }
        if (held != null) {
            table.remove(held.link(), held.address());
        }
    }
}
