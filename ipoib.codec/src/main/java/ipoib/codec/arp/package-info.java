/**
 * ARP and RARP over IPoIB (RFC 4391 §9.2): hardware type 32, 20-octet hardware addresses in the
 * format of §9.1.1, IPv4 protocol addresses; 56 octets in all.
 *
 * <p>Contract: {@link ipoib.codec.arp.ArpCodec} reads and writes at an offset in a
 * {@link java.lang.foreign.MemorySegment} the caller owns and keeps no reference to it. Decoding
 * returns an immutable {@link ipoib.codec.arp.ArpPacket} (ARP is control plane, so a small record
 * per packet is acceptable) and throws only {@link ipoib.codec.DecodeException}, naming the field
 * and its offset in the segment; inconsistent header combinations are rejected, never guessed
 * at. Encoders return the number of octets written and throw
 * {@link java.lang.IndexOutOfBoundsException} when the caller's buffer is too small.
 */
@Export
@Version("1.0.0")
package ipoib.codec.arp;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
