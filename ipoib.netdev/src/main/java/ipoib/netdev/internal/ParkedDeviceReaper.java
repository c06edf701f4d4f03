package ipoib.netdev.internal;

import java.io.IOException;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.cm.Configuration;
import org.osgi.service.cm.ConfigurationAdmin;
import org.osgi.service.cm.ConfigurationEvent;
import org.osgi.service.cm.ConfigurationListener;
import org.osgi.service.component.annotations.Activate;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.log.Logger;
import org.osgi.service.log.LoggerFactory;

/**
 * Removes a kept device ({@link ParkedDevices}) whose configuration is deleted while no component
 * runs it (its interface is missing, e.g. {@code ipoib:netdev del} of an interface that is not
 * running), and at start the kept devices whose configuration went while this bundle was stopped.
 */
@Component(immediate = true)
public final class ParkedDeviceReaper implements ConfigurationListener {
    private final Logger log;

    @Activate
    public ParkedDeviceReaper(@Reference ConfigurationAdmin configurationAdmin,
                              @Reference(service = LoggerFactory.class) Logger log) throws IOException, InvalidSyntaxException {
        this.log = log;
        Configuration[] all = configurationAdmin.listConfigurations(
                "(service.factoryPid=" + NetdevComponent.FACTORY_PID + ")");
        Set<String> configured = new HashSet<>();
        for (Configuration c : all == null ? new Configuration[0] : all) {
            configured.add(c.getPid());
        }
        for (Map.Entry<String, ParkedDevices.Parked> e : ParkedDevices.all().entrySet()) {
            if (!configured.contains(e.getKey())) {
                reap(e.getKey());
            }
        }
    }

    @Override
    public void configurationEvent(ConfigurationEvent event) {
        if (event.getType() == ConfigurationEvent.CM_DELETED
                && NetdevComponent.FACTORY_PID.equals(event.getFactoryPid())) {
            reap(event.getPid());
        }
    }

    private void reap(String pid) {
        ParkedDevices.Parked device = ParkedDevices.all().get(pid);
        if (device != null) {
            ParkedDevices.discard(pid, device, log::warn); // out of the store last: ipoib:netdev del waits for it
            log.info("ipoib.netdev " + device.link() + ": device " + device.device() + " removed with its configuration");
        }
    }
}
