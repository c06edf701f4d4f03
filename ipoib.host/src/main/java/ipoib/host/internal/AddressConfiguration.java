package ipoib.host.internal;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;

/** One configured interface address (factory PID {@value AddressConfigurator#FACTORY_PID}). */
@ObjectClassDefinition(name = "ipoib interface address", description = "An IPv4 or IPv6 address of an IPoIB interface.")
@interface AddressConfiguration {

    @AttributeDefinition(name = "Interface", description = "Interface name (A-Z a-z 0-9 _ . -), e.g. ib0_1_ffff.",
            min = "1", max = "32")
    String link();

    @AttributeDefinition(name = "Address", description = "Address and prefix length, e.g. 10.0.0.1/24 or fd00::1/64.")
    String address();
}
