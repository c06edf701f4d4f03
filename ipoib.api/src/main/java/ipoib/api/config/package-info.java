/**
 * Configuration rules a bundle offers so that a configuration is checked, by the same code its
 * component runs, before it is stored; and the verdicts components give on what was stored.
 */
@Export
@Version("1.0.0")
package ipoib.api.config;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
