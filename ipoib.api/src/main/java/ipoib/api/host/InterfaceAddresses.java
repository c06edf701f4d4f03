package ipoib.api.host;

import org.osgi.annotation.versioning.ProviderType;
import java.net.InetAddress;
import java.time.Instant;
import java.util.List;

/**
 * The addresses of every interface, by link name. Links need not exist or be UP for their
 * addresses to be configured; an address is used while its link is UP.
 */
@ProviderType
public interface InterfaceAddresses {

    /** The addresses of a link, or of every link when {@code linkName} is null, ordered by link then address. */
    List<InterfaceAddress> addresses(String linkName);

    /**
     * Adds an address to a link, or updates its prefix length, origin and lifetime when it is
     * there already (its state stays). A new IPv4 address is PREFERRED at once, a new IPv6
     * address TENTATIVE until Neighbor Discovery has checked that it is unique.
     *
     * @param validUntil when the address expires, or null for never
     * @return the address as stored
     * @throws IllegalArgumentException for a bad link name, a multicast, unspecified or loopback
     *     address, or a prefix length outside the family's range, naming the value
     */
    InterfaceAddress add(String linkName, InetAddress address, int prefixLength, AddressOrigin origin,
                         Instant validUntil);

    /** Removes an address from a link; returns whether it was there. */
    boolean remove(String linkName, InetAddress address);

    /** Sets the state of an address; returns whether the address is there. */
    boolean setState(String linkName, InetAddress address, AddressState state);
}
