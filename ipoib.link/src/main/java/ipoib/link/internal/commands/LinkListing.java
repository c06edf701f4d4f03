package ipoib.link.internal.commands;

import ipoib.api.link.IpoibLink;
import ipoib.api.listing.ListingSource;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/**
 * A console listing of every interface, sorted by name; the subclass says which one. Its
 * reference is inherited by the subclasses' components ({@code -dsannotations-options: inherit}).
 */
abstract class LinkListing implements ListingSource {
    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    @Override
    public final Map<String, Object> listing() {
        return listing(links.stream().sorted(Comparator.comparing(IpoibLink::name)).toList());
    }

    abstract Map<String, Object> listing(List<IpoibLink> sortedByName);
}
