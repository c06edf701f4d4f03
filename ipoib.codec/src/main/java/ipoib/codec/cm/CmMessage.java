package ipoib.codec.cm;

import java.lang.foreign.MemorySegment;

/** One CM message: the 232 octets of MAD data after the common MAD header. */
public sealed interface CmMessage permits CmReq, CmMra, CmRej, CmRep, CmRtu, CmDreq, CmDrep {

    /** Octets of MAD data every CM message occupies (256-octet MAD minus its 24-octet header). */
    int DATA_LENGTH = 232;

    /** The AttributeID that names the message in the MAD header (IBA table 104). */
    int attributeId();

    /** The Local Communication ID of the sender. */
    int localCommId();

    /** Writes the {@value #DATA_LENGTH} octets at {@code offset}, reserved bits zero. */
    void encode(MemorySegment segment, long offset);
}
