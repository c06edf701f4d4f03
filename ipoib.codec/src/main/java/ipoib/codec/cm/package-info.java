/**
 * Communication Management MADs (IBA 1.2.1 chapter 12; management class 0x07, class version 2):
 * the messages that set up and tear down reliable connections — REQ, MRA, REJ, REP, RTU, DREQ,
 * DREP — and the private data IPoIB connected mode carries in them (RFC 4755 §6,
 * drivers/infiniband/ulp/ipoib/ipoib_cm.c).
 *
 * <p>Each message is a record of its fields with {@code encode}/{@code decode} of the 232-octet
 * MAD data that follows the common MAD header; {@link ipoib.codec.cm.CmMad} writes and reads
 * whole MADs. Offsets and bit positions follow the IBA tables 106–113 as Linux declares them in
 * include/rdma/ibta_vol1_c12.h. Decoders check lengths and reserved values they depend on and
 * throw {@link ipoib.codec.DecodeException}; constructors refuse fields beyond their widths.
 */
@Export
@Version("1.0.0")
package ipoib.codec.cm;

import org.osgi.annotation.bundle.Export;
import org.osgi.annotation.versioning.Version;
