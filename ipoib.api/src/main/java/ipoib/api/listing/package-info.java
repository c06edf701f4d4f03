/**
 * The shell's listings as data, for the console: a {@link ipoib.api.listing.ListingSource}
 * service gives the object its listing command prints with {@code --json} (docs/JSON.md), so that
 * the console's tables and JSON endpoints show the same records in the same shape.
 */
@Export
@Version("1.0.0")
package ipoib.api.listing;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
