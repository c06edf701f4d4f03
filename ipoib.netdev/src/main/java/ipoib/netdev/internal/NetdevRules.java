package ipoib.netdev.internal;

import ipoib.api.config.ConfigurationRules;
import ipoib.api.link.IpoibLink;
import ipoib.runtime.ConfigValues;
import ipoib.runtime.ShownValue;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.framework.Constants;
import org.osgi.framework.Filter;
import org.osgi.framework.FrameworkUtil;
import org.osgi.framework.InvalidSyntaxException;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * The rules of {@value NetdevComponent#FACTORY_PID} configurations, for a check before one is
 * stored: the component's own check, against the interface its {@code link.target} selects, as
 * Declarative Services will bind it (the component's link is a static reference of cardinality
 * one: of the interfaces the filter matches, the highest {@code service.ranking}, then the lowest
 * {@code service.id}).
 */
@Component(property = ConfigurationRules.PID_PROPERTY + "=" + NetdevComponent.FACTORY_PID)
public final class NetdevRules implements ConfigurationRules {
    /** The default of {@code link.target} (NetdevConfiguration.link_target). */
    private static final String ANY_LINK = "(" + IpoibLink.NAME_PROPERTY + "=*)";
    private static final String TARGET = "link.target";
    /** The interfaces with their service properties. */
    private final Map<IpoibLink, Map<String, Object>> links = new ConcurrentHashMap<>();

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
        if (links.keySet().stream().noneMatch(l -> l.name().equals(config.link()))) {
            return "invalid " + NetdevComponent.FACTORY_PID + " property 'link' value '" + config.link()
                    + "': no such interface: allowed one of those ipoib:links shows (" + names() + ")";
        }
        Object target = properties.get(TARGET);
        String filterText = target == null ? ANY_LINK : String.valueOf(target);
        Filter filter;
        try {
            filter = FrameworkUtil.createFilter(filterText);
        } catch (InvalidSyntaxException e) {
            return "invalid " + NetdevComponent.FACTORY_PID + " property '" + TARGET + "' value " + ShownValue.of(filterText)
                    + ": not a service filter (" + e.getMessage() + "): allowed (" + IpoibLink.NAME_PROPERTY + "=<link>)";
        }
        IpoibLink selected = links.entrySet().stream().filter(e -> filter.matches(e.getValue()))
                .min(Comparator.comparing((Map.Entry<IpoibLink, Map<String, Object>> e) -> -ranking(e.getValue()))
                        .thenComparingLong(e -> serviceId(e.getValue())))
                .map(Map.Entry::getKey).orElse(null);
        if (selected == null) {
            return "invalid " + NetdevComponent.FACTORY_PID + " property '" + TARGET + "' value " + ShownValue.of(filterText)
                    + ": selects no interface: allowed (" + IpoibLink.NAME_PROPERTY + "=" + config.link() + ")";
        }
        return NetdevComponent.refusal(config, properties, selected);
    }

    private String names() {
        return String.join(", ", links.keySet().stream().map(IpoibLink::name).sorted().toList());
    }

    private static int ranking(Map<String, Object> properties) {
        return properties.get(Constants.SERVICE_RANKING) instanceof Integer r ? r : 0;
    }

    private static long serviceId(Map<String, Object> properties) {
        return properties.get(Constants.SERVICE_ID) instanceof Long id ? id : Long.MAX_VALUE;
    }

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link, Map<String, Object> properties) {
        links.put(link, Map.copyOf(properties));
    }

    void updatedLink(IpoibLink link, Map<String, Object> properties) {
        links.put(link, Map.copyOf(properties));
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }
}
