/**
 * One subnet-administrator test suite for every SA: {@link ipoib.satest.SubnetAdministratorContract}
 * holds the expectations; a fabric under test (the loopback SA emulation, OpenSM on ibsim
 * driven through the hardware provider's MAD transport) extends it and supplies three hosts.
 */
@Export
@Version("2.0.0")
package ipoib.satest;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
