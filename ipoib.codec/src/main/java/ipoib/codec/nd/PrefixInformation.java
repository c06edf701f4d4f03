package ipoib.codec.nd;

import java.net.Inet6Address;

/**
 * The Prefix Information option of a Router Advertisement (RFC 4861 §4.6.2, option type 3).
 * Lifetimes are in seconds; {@link #INFINITE} (0xFFFFFFFF) means forever.
 *
 * @param prefixLength 0..128
 * @param onLink the L flag: the prefix is on this link
 * @param autonomous the A flag: usable for stateless address configuration
 * @param validLifetime 0..0xFFFFFFFF
 * @param preferredLifetime 0..0xFFFFFFFF
 * @param prefix the prefix (bits beyond {@code prefixLength} are carried as given)
 */
public record PrefixInformation(int prefixLength, boolean onLink, boolean autonomous, long validLifetime,
        long preferredLifetime, Inet6Address prefix) {

    /** The lifetime value that means infinity. */
    public static final long INFINITE = 0xFFFF_FFFFL;

    /**
     * Checks the components.
     *
     * @throws IllegalArgumentException for values outside their fields or a null prefix
     */
    public PrefixInformation {
        if (prefixLength < 0 || prefixLength > 128) {
            throw new IllegalArgumentException("prefix length " + prefixLength + " is outside 0..128");
        }
        NdChecks.u32("valid lifetime", validLifetime);
        NdChecks.u32("preferred lifetime", preferredLifetime);
        Ipv6.requireNonNull("prefix", prefix);
    }
}
