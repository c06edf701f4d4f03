/** The loopback provider's OSGi component, configuration and shell commands (private). */
package ipoib.verbs.loopback.internal;
