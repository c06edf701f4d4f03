/**
 * InfiniBand Architecture packet headers and CRCs (IBA 1.2.1 volume 1, chapters 7-9): the Local
 * Route Header ({@link ipoib.codec.iba.Lrh}), Global Route Header ({@link ipoib.codec.iba.Grh}),
 * Base Transport Header ({@link ipoib.codec.iba.Bth}) and Datagram Extended Transport Header
 * ({@link ipoib.codec.iba.Deth}), the Invariant and Variant CRCs ({@link ipoib.codec.iba.Icrc},
 * {@link ipoib.codec.iba.Vcrc}), and whole unreliable-datagram packets
 * ({@link ipoib.codec.iba.UdPacket}) as the loopback fabric's wire tap and packet captures see
 * them.
 *
 * <p>Contract: every codec reads and writes big-endian fields (the CRCs excepted, which are sent
 * least significant octet first) at an offset in a caller-owned
 * {@link java.lang.foreign.MemorySegment}. The header classes are mutable, reusable views: one
 * instance per thread decodes and encodes any number of packets without allocating. Decoders
 * throw only {@link ipoib.codec.DecodeException}, naming the IBA field ("LRH PktLen",
 * "ICRC", ...) and its offset in the segment; encoders write reserved fields as zero and throw
 * {@link java.lang.IndexOutOfBoundsException} when the caller's segment is too small. Setters
 * refuse values that do not fit their field with {@link java.lang.IllegalArgumentException}.
 */
@Export
@Version("1.1.0")
package ipoib.codec.iba;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
