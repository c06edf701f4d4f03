package ipoib.api.listing;

import java.util.Map;
import org.osgi.annotation.versioning.ConsumerType;

/**
 * One of the shell's listings (e.g. {@code ipoib:cm}), registered as a service with
 * {@link #NAME_PROPERTY} naming it: the console shows it as tables and serves it as JSON.
 */
@ConsumerType
public interface ListingSource {
    /** The service property naming the listing as its command does: {@code cm}, {@code paths}, {@code netdev}. */
    String NAME_PROPERTY = "ipoib.listing";

    /**
     * The whole listing now: the object its command prints with {@code --json}, whose members
     * are arrays of records (maps in field order), numbers or objects. Values are maps,
     * collections, numbers, booleans, null, or anything else standing for its {@code toString()}.
     * Reads counters and tables; does not wait.
     */
    Map<String, Object> listing();
}
