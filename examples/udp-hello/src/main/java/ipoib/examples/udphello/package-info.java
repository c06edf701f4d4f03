/**
 * The udp-hello example: a user's bundle on the ipoib stack, configured by the OSGi Configurator
 * from {@code OSGI-INF/configurator/udp-hello.json} (which the annotation below makes the
 * resolver and the Configurator see).
 */
@RequireConfigurator
package ipoib.examples.udphello;

import org.osgi.service.configurator.annotations.RequireConfigurator;
