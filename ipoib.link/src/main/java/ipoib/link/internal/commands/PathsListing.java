package ipoib.link.internal.commands;

import ipoib.api.link.IpoibLink;
import ipoib.api.listing.ListingSource;
import java.util.List;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** {@code ipoib:paths --json} of every interface, for the console. */
@Component(service = ListingSource.class, property = ListingSource.NAME_PROPERTY + "=paths")
public final class PathsListing extends LinkListing {
    @Override
    Map<String, Object> listing(List<IpoibLink> sortedByName) {
        return LinkReport.pathsListing(sortedByName);
    }
}
