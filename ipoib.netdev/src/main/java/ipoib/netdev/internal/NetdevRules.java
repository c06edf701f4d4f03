package ipoib.netdev.internal;

import ipoib.api.config.ConfigurationRules;
import ipoib.api.link.IpoibLink;
import ipoib.runtime.ConfigValues;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The rules of {@value NetdevComponent#FACTORY_PID} configurations, for a check before one is
 * stored: the component's own check, against the interface the configuration names.
 */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + NetdevComponent.FACTORY_PID)
public final class NetdevRules implements ConfigurationRules {
    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @Override
    public String refusal(String pid, Map<String, ?> properties) {
        NetdevConfiguration config;
        try {
            ipoib.runtime.ConfigCheck problems = NetdevComponent.CHECK;
            problems.check(properties);
            config = ConfigValues.of(NetdevConfiguration.class, properties);
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
        IpoibLink link = links.stream().filter(l -> l.name().equals(config.link())).findFirst().orElse(null);
        if (link == null) {
            return "invalid " + NetdevComponent.FACTORY_PID + " property 'link' value '" + config.link()
                    + "': no such interface: allowed one of those ipoib:links shows ("
                    + String.join(", ", links.stream().map(IpoibLink::name).sorted().toList()) + ")";
        }
        return NetdevComponent.refusal(config, properties, link);
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }
}
