package ipoib.host.internal;

import ipoib.api.host.AddressOrigin;
import ipoib.api.host.InterfaceAddresses;
import ipoib.runtime.ConfigCheck;
import java.util.Map;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.ConfigurationPolicy;
import org.osgi.service.component.annotations.Deactivate;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;
import org.osgi.service.metatype.annotations.Designate;

/**
 * One interface address per factory configuration: added while the configuration exists. A
 * refused configuration (its message names the property, the value and the form allowed) leaves
 * the component unsatisfied; the other addresses are not disturbed.
 */
@Component(configurationPid = AddressConfigurator.FACTORY_PID, configurationPolicy = ConfigurationPolicy.REQUIRE,
        service = {})
@Designate(ocd = AddressConfiguration.class, factory = true)
public final class AddressConfigurator {

    /** Factory PID of address configurations. */
    public static final String FACTORY_PID = "ipoib.address";

    private final InterfaceAddresses table;
    private final String link;
    private final AddressTable.InterfaceAddressSpec spec;

    private static final ConfigCheck CHECK = ConfigCheck.of(AddressConfiguration.class);

    @Activate
    public AddressConfigurator(AddressConfiguration configuration, Map<String, Object> properties,
                               @Reference InterfaceAddresses table,
                               @Reference(service = LoggerFactory.class) Logger log) {
        this.table = table;
        try {
            // Types first (one declaration, in AddressConfiguration), then the forms the text must have.
            CHECK.check(properties);
            this.link = link(configuration.link());
            this.spec = spec(configuration.address());
        } catch (IllegalArgumentException e) {
            log.error(e.getMessage());
            throw e;
        }
        table.add(link, spec.address(), spec.prefixLength(), AddressOrigin.CONFIGURED, null);
    }

    static String link(String value) {
        try {
            AddressTable.checkLink(value);
            return value;
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + FACTORY_PID + " property 'link' value '" + value
                    + "': allowed an interface name of 1..32 characters of A-Z a-z 0-9 _ . -");
        }
    }

    static AddressTable.InterfaceAddressSpec spec(String value) {
        try {
            return AddressTable.parseCidr(value);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid " + FACTORY_PID + " property 'address' value '" + value + "': "
                    + e.getMessage());
        }
    }

    @Deactivate
    void deactivate() {
        table.remove(link, spec.address());
    }
}
