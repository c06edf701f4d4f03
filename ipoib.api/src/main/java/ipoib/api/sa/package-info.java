/**
 * Subnet administration (IBA 15.4): the client that every link uses for path records,
 * multicast joins and group traps, and the management-datagram transport it runs over.
 *
 * <p>Providers supply a {@link ipoib.api.sa.MadTransport} per port; one client implementation
 * (over any transport) provides {@link ipoib.api.sa.SubnetAdministrator}. Its answers arrive
 * through {@link java.util.concurrent.CompletionStage}s, completed on a provider thread; a
 * failed request completes exceptionally with {@link ipoib.api.sa.SaException}.
 */
@Export
@Version("1.1.0")
package ipoib.api.sa;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
