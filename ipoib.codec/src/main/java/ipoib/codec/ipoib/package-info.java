/**
 * The IPoIB data path formats of RFC 4391: the 4-octet encapsulation header (§6), the framing
 * of a UD receive buffer with its 40-octet GRH area (§6, IBA 8.3; the GRH itself is
 * {@link ipoib.codec.iba.Grh}), and the 20-octet
 * link-layer address (§9.1.1) with the capability flags of its first octet
 * (draft-kashyap-ipoib-advanced-capabilities-00 §2.0).
 *
 * <p>Contract: every method reads or writes at an offset in a {@link java.lang.foreign.MemorySegment}
 * the caller owns; nothing keeps a reference to it. Decoders and accessors throw only
 * {@link ipoib.codec.DecodeException} on bad input, naming the field and its offset in the segment.
 * Encoders return the number of octets written, throw {@link java.lang.IllegalArgumentException}
 * for field values that do not fit their field and {@link java.lang.IndexOutOfBoundsException}
 * when the caller's buffer is too small. Nothing on these paths allocates, except the methods
 * documented to return value objects ({@link ipoib.api.LinkAddress}, {@link ipoib.api.Gid}).
 */
@Export
@Version("2.1.0")
package ipoib.codec.ipoib;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
