/**
 * Immutable InfiniBand and IPoIB value types.
 */
@Export
@Version("1.1.0")
package ipoib.api;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
