/**
 * IPv4 (RFC 791) and IPv6 (RFC 8200) headers, ICMP and ICMPv6 echo (RFC 792, RFC 4443 §4) and
 * UDP (RFC 768) with the Internet checksum (RFC 1071) over their pseudo-headers: what the host
 * layer puts into and reads from IPoIB frames.
 *
 * <p>Contract: static methods over a {@link java.lang.foreign.MemorySegment} the caller owns, at
 * an offset; nothing keeps a reference and nothing allocates, so they serve the data path.
 * Addresses are primitive: an IPv4 address is an {@code int} ({@code 10.0.0.1} is
 * {@code 0x0A000001}), an IPv6 address two {@code long}s. The {@code validate} methods throw only
 * {@link ipoib.codec.DecodeException}, naming the field and its offset, for truncated input,
 * wrong versions or lengths and checksums that do not match; accessors read fields the caller
 * has validated and throw {@link java.lang.IndexOutOfBoundsException} naming the header, the
 * offset and the segment's size when the header does not lie in the segment. Writers compute the checksums, return the octets written and throw
 * {@link java.lang.IndexOutOfBoundsException} when the buffer is too small.
 *
 * <p>1.1: {@link ipoib.codec.ip.IpVersion} (the version field both headers start with),
 * {@link ipoib.codec.ip.Ipv6HeaderChain} (the extension-header walk to the upper-layer header)
 * and {@link ipoib.codec.ip.Ipv4Header#PROTOCOL_IGMP}.
 */
@Export
@Version("1.1.0")
package ipoib.codec.ip;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
