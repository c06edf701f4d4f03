package ipoib.netdev.internal;

import ipoib.api.listing.ListingSource;
import java.util.Map;
import org.osgi.service.component.annotations.Component;

/** {@code ipoib:netdev --json}, for the console. */
@Component(property = ListingSource.NAME_PROPERTY + "=netdev")
public final class NetdevListing implements ListingSource {
    @Override
    public Map<String, Object> listing() {
        return NetdevCommands.listing();
    }
}
