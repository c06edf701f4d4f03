package ipoib.link.internal.commands;

import ipoib.api.link.IpoibLink;
import ipoib.api.listing.ListingSource;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.component.annotations.Component;
import org.osgi.service.component.annotations.Reference;
import org.osgi.service.component.annotations.ReferenceCardinality;
import org.osgi.service.component.annotations.ReferencePolicy;

/** {@code ipoib:paths --json} of every interface, for the console. */
@Component(property = ListingSource.NAME_PROPERTY + "=paths")
public final class PathsListing implements ListingSource {
    private final List<IpoibLink> links = new CopyOnWriteArrayList<>();

    @Reference(cardinality = ReferenceCardinality.MULTIPLE, policy = ReferencePolicy.DYNAMIC)
    void addLink(IpoibLink link) {
        links.add(link);
    }

    void removeLink(IpoibLink link) {
        links.remove(link);
    }

    @Override
    public Map<String, Object> listing() {
        return LinkReport.pathsListing(links.stream().sorted(Comparator.comparing(IpoibLink::name)).toList());
    }
}
