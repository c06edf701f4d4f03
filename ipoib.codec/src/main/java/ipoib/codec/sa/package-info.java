/**
 * The subnet administrator client (IBA 15.4) that both verbs providers offer as
 * {@link ipoib.api.sa.SubnetAdministrator}: it runs over any {@link ipoib.api.sa.MadTransport},
 * encodes requests with {@link ipoib.codec.mad}, matches answers by transaction ID, retries on
 * timeout, answers Reports and hands group traps to subscribers.
 */
@Export
@Version("1.2.0")
package ipoib.codec.sa;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
