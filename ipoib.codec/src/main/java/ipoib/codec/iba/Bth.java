package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * The Base Transport Header (IBA 1.2.1 §9.2; laid out in draft-kashyap-ipv6-over-ib appendix
 * B.3): 12 octets present in every IBA transport packet.
 *
 * <pre>
 * octet 0: OpCode        octet 1: SE (1) | M (1) | PadCnt (2) | TVer (4)     octets 2-3: P_Key
 * octet 4: Resv8a        octets 5-7: DestQP
 * octet 8: A (1) | reserved (7)                                             octets 9-11: PSN
 * </pre>
 *
 * <p>Resv8a is a variant field: written as zero, ignored on receive and replaced by ones for the
 * ICRC (IBA §7.8.1). PadCnt is the number of pad octets (0..3) that bring the payload to a
 * multiple of four. A mutable, reusable view. Not thread-safe.
 */
public final class Bth {
    /** Length of the BTH in octets. */
    public static final int LENGTH = 12;
    /** OpCode of an unreliable-datagram SEND Only packet (IBA §9.2: transport UD 011, operation SEND Only 00100). */
    public static final int OPCODE_UD_SEND_ONLY = 0x64;
    /** OpCode of an unreliable-datagram SEND Only with Immediate packet. */
    public static final int OPCODE_UD_SEND_ONLY_WITH_IMMEDIATE = 0x65;
    /** The only transport header version IBA 1.x defines. */
    public static final int TRANSPORT_VERSION = 0;

    private int opcode;
    private boolean solicitedEvent;
    private boolean migrationRequest;
    private int padCount;
    private int transportVersion;
    private int partitionKey;
    private int destinationQp;
    private boolean ackRequest;
    private int packetSequenceNumber;

    /** OpCode, 8 bits. */
    public int opcode() {
        return opcode;
    }

    public Bth opcode(int op) {
        this.opcode = Fields.check("BTH OpCode", op, 8);
        return this;
    }

    /** SE: the receiver should raise a solicited event. */
    public boolean solicitedEvent() {
        return solicitedEvent;
    }

    public Bth solicitedEvent(boolean se) {
        this.solicitedEvent = se;
        return this;
    }

    /** M: the migration state (MigReq). */
    public boolean migrationRequest() {
        return migrationRequest;
    }

    public Bth migrationRequest(boolean m) {
        this.migrationRequest = m;
        return this;
    }

    /** PadCnt, 0..3. */
    public int padCount() {
        return padCount;
    }

    public Bth padCount(int pad) {
        this.padCount = Fields.check("BTH PadCnt", pad, 2);
        return this;
    }

    /** TVer, 0..15; IBA 1.x packets carry 0. */
    public int transportVersion() {
        return transportVersion;
    }

    public Bth transportVersion(int tver) {
        this.transportVersion = Fields.check("BTH TVer", tver, 4);
        return this;
    }

    /** P_Key, 16 bits as carried (membership bit included). */
    public int partitionKey() {
        return partitionKey;
    }

    public Bth partitionKey(int pkey) {
        this.partitionKey = Fields.check("BTH P_Key", pkey, 16);
        return this;
    }

    /** DestQP, 24 bits (0xFFFFFF for multicast). */
    public int destinationQp() {
        return destinationQp;
    }

    public Bth destinationQp(int qpn) {
        this.destinationQp = Fields.check("BTH DestQP", qpn, 24);
        return this;
    }

    /** A: acknowledge request (not used by UD). */
    public boolean ackRequest() {
        return ackRequest;
    }

    public Bth ackRequest(boolean a) {
        this.ackRequest = a;
        return this;
    }

    /** PSN, 24 bits. */
    public int packetSequenceNumber() {
        return packetSequenceNumber;
    }

    public Bth packetSequenceNumber(int psn) {
        this.packetSequenceNumber = Fields.check("BTH PSN", psn, 24);
        return this;
    }

    /** Sets every field to zero. */
    public Bth clear() {
        opcode = padCount = transportVersion = partitionKey = destinationQp = packetSequenceNumber = 0;
        solicitedEvent = migrationRequest = ackRequest = false;
        return this;
    }

    /** Copies every field of {@code other}. */
    public Bth set(Bth other) {
        opcode = other.opcode;
        solicitedEvent = other.solicitedEvent;
        migrationRequest = other.migrationRequest;
        padCount = other.padCount;
        transportVersion = other.transportVersion;
        partitionKey = other.partitionKey;
        destinationQp = other.destinationQp;
        ackRequest = other.ackRequest;
        packetSequenceNumber = other.packetSequenceNumber;
        return this;
    }

    /**
     * Writes the 12 octets at {@code offset}, Resv8a and the 7 reserved bits zero.
     *
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public void encode(MemorySegment segment, long offset) {
        // Checked before the first octet is written: a short buffer is left as it was.
        Wire.check(segment, offset, LENGTH, "BTH");
        Wire.put8(segment, offset, opcode);
        Wire.put8(segment, offset + 1, (solicitedEvent ? 0x80 : 0) | (migrationRequest ? 0x40 : 0) | padCount << 4
                | transportVersion);
        Wire.put16(segment, offset + 2, partitionKey);
        Wire.put32(segment, offset + 4, destinationQp);
        Wire.put32(segment, offset + 8, (ackRequest ? 0x8000_0000 : 0) | packetSequenceNumber);
    }

    /**
     * Reads the 12 octets at {@code offset} into this view. The OpCode is not checked here (the
     * packet decoder accepts UD SEND Only).
     *
     * @throws DecodeException when fewer than 12 octets remain ("BTH") or TVer is not 0 ("BTH TVer")
     */
    public Bth decode(MemorySegment segment, long offset) throws DecodeException {
        Wire.require(segment, offset, LENGTH, "BTH");
        int b1 = Wire.u8(segment, offset + 1);
        if ((b1 & 0xF) != TRANSPORT_VERSION) {
            throw new DecodeException("BTH TVer", offset + 1, "transport version " + (b1 & 0xF) + ", only 0 is defined");
        }
        opcode = Wire.u8(segment, offset);
        solicitedEvent = (b1 & 0x80) != 0;
        migrationRequest = (b1 & 0x40) != 0;
        padCount = b1 >>> 4 & 0x3;
        transportVersion = b1 & 0xF;
        partitionKey = Wire.u16(segment, offset + 2);
        destinationQp = Wire.u24(segment, offset + 5);
        int word2 = Wire.u32(segment, offset + 8);
        ackRequest = word2 < 0;
        packetSequenceNumber = word2 & 0xFF_FFFF;
        return this;
    }

    @Override
    public String toString() {
        return String.format("BTH[OpCode=0x%02x SE=%b M=%b PadCnt=%d TVer=%d P_Key=0x%04x DestQP=0x%06x A=%b PSN=%d]",
                opcode, solicitedEvent, migrationRequest, padCount, transportVersion, partitionKey, destinationQp,
                ackRequest, packetSequenceNumber);
    }
}
