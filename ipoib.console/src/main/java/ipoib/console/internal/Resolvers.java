package ipoib.console.internal;

import ipoib.api.resolve.NeighbourResolver;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** The neighbour resolvers by family ({@code ipv4}: ARP, {@code ipv6}: ND) as they come and go. */
@Component(service = Resolvers.class)
public final class Resolvers {

    private final Map<NeighbourResolver, String> families = new ConcurrentHashMap<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addResolver(NeighbourResolver resolver, Map<String, Object> properties) {
        Object family = properties.get(NeighbourResolver.FAMILY_PROPERTY);
        families.put(resolver, family == null ? "unknown" : family.toString());
    }

    void removeResolver(NeighbourResolver resolver) {
        families.remove(resolver);
    }

    /** Family name to resolver, sorted by family. */
    Map<String, NeighbourResolver> byFamily() {
        Map<String, NeighbourResolver> out = new TreeMap<>();
        families.forEach((r, f) -> out.put(f, r));
        return out;
    }
}
