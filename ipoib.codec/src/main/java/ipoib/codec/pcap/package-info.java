/**
 * Packet captures that Wireshark and tshark read: a pcapng writer ({@link
 * ipoib.codec.pcap.PcapngWriter}) and reader ({@link ipoib.codec.pcap.PcapngReader}), the
 * 40-octet IPoIB pseudo-header of link type 242 ({@link ipoib.codec.pcap.IpoibPseudoHeader}) and
 * the ERF record header that wraps whole IBA packets under link type 197
 * ({@link ipoib.codec.pcap.ErfHeader}, type 21).
 *
 * <p>Contract: the writer sends blocks to a caller-supplied channel or stream through one
 * bounded buffer and allocates nothing per packet after its first blocks; the packet data is
 * read from caller-owned {@link java.lang.foreign.MemorySegment}s. Decoders (ERF header,
 * pseudo-header, reader) throw only {@link ipoib.codec.DecodeException} naming the field and its
 * offset; I/O failures surface as {@link java.io.IOException}.
 */
@Export
@Version("2.0.0")
package ipoib.codec.pcap;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
