/**
 * EventAdmin topics and event properties published by the toolkit's bundles.
 */
@Export
@Version("1.0.0")
package ipoib.api.event;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
