/**
 * IPv6 Neighbor Discovery over IPoIB (RFC 4861 message formats with the IPoIB link-layer
 * address option of RFC 4391 §9.3), and the IPv6 interface identifiers and addresses of an
 * IPoIB interface (RFC 4391 §8, RFC 4291).
 *
 * <p>The link layer carries whole IPv6 packets, so {@link ipoib.codec.nd.NdCodec} reads and
 * writes whole packets: the 40-octet IPv6 header (hop limit 255, next header 58) followed by the
 * ICMPv6 message, whose checksum covers the IPv6 pseudo-header.
 *
 * <p>Contract: the codec reads and writes at an offset in a {@link java.lang.foreign.MemorySegment}
 * the caller owns and keeps no reference to it. Decoding returns immutable records (ND is control
 * plane) and throws only {@link ipoib.codec.DecodeException}, naming the field and its offset in
 * the segment: for a truncated packet or option, a malformed option (zero length, overrunning
 * the message, a link-layer address option whose length is not 3), a wrong checksum, and every
 * check of the RFC 4861 validation rules (§6.1.1, §6.1.2, §7.1.1, §7.1.2, §8.1). Encoders
 * compute the checksum, return the number of octets written and throw
 * {@link java.lang.IndexOutOfBoundsException} when the caller's buffer is too small; the record
 * constructors throw {@link java.lang.IllegalArgumentException} for messages those rules forbid,
 * so whatever encodes also decodes.
 */
@Export
@Version("1.1.0")
package ipoib.codec.nd;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
