/**
 * The operator's console (private): Felix Web Console plugins registered as plain servlet
 * services, the Prometheus endpoint, the events ring and the configuration command. Uses only the
 * public services of {@code ipoib.api}.
 */
package ipoib.console.internal;
