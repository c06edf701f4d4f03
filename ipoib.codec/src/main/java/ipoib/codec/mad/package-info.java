/**
 * Management datagrams of subnet administration (IBA 1.2.1 chapters 13 and 15): the common MAD
 * header ({@link ipoib.codec.mad.MadHeader}, §13.4.3), the RMPP header
 * ({@link ipoib.codec.mad.RmppHeader}, §13.6.2), the SA header ({@link ipoib.codec.mad.SaHeader},
 * §15.2.1.1) and a whole SA MAD ({@link ipoib.codec.mad.SaMad}); the attributes PathRecord
 * ({@link ipoib.codec.mad.SaPathRecord}, §15.2.5.16), MCMemberRecord
 * ({@link ipoib.codec.mad.SaMcMemberRecord}, §15.2.5.17), InformInfo
 * ({@link ipoib.codec.mad.InformInfo}, §13.4.8.3) and Notice ({@link ipoib.codec.mad.Notice},
 * §13.4.8.2); method codes, attribute IDs and selectors. {@link ipoib.codec.mad.SaAttribute} describes
 * each SA attribute once (ID, name, record length, table stride, record type and codec). Status codes are those of
 * {@link ipoib.api.sa.SaStatus}.
 *
 * <p>One encoding serves the loopback SA emulation, the SA client and the hardware transport.
 * Contract: records hold every field as carried (query templates with zero or unusual values
 * round-trip) and convert to and from the API records ({@link ipoib.api.PathRecord},
 * {@link ipoib.api.McMemberRecord}, {@link ipoib.api.sa.GroupTrap}); a conversion of a value the
 * API cannot represent throws {@link ipoib.codec.DecodeException}. Codecs read and write
 * big-endian fields at an offset in a caller-owned {@link java.lang.foreign.MemorySegment};
 * encoders write reserved fields as zero and throw {@link java.lang.IndexOutOfBoundsException}
 * when the segment is too small; decoders throw only {@link ipoib.codec.DecodeException} naming
 * the field and its offset. MADs are control traffic: decoding builds one small record per
 * header or attribute.
 */
@Export
@Version("1.1.0")
package ipoib.codec.mad;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
