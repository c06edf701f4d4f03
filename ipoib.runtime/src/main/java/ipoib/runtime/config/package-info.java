/**
 * Configurations a component refuses: the last good one stays in force and is stored again
 * (uses Configuration Admin; a separate package so that only the bundles that use it import it).
 */
package ipoib.runtime.config;
