package ipoib.codec.iba;

import ipoib.codec.DecodeException;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;
import java.util.Objects;

/**
 * A whole unreliable-datagram SEND Only packet as it crosses an IBA link (IBA 1.2.1 §5.3, packet
 * layout in draft-pelissier-ipoib-encaparp §3):
 *
 * <pre>
 * LRH (8) | GRH (40, global packets only) | BTH (12) | DETH (8) | payload | pad (0-3) | ICRC (4) | VCRC (2)
 * </pre>
 *
 * <p>One reusable instance holds the four header views. To send, set the addressing fields of
 * {@link #lrh()}, {@link #grh()} (with {@link #global(boolean) global(true)}), {@link #bth()} and
 * {@link #deth()}, then {@link #encode}: it derives and fills in everything the payload length and
 * the presence of a GRH determine (LRH LVer, LNH and PktLen; GRH IPVer, PayLen and NxtHdr; BTH
 * OpCode 0x64, PadCnt and TVer), zeroes the pad and writes ICRC and VCRC. To receive,
 * {@link #decode} checks the VCRC, the headers and the ICRC and leaves the payload's place in
 * {@link #payloadOffset()} and {@link #payloadLength()}. Neither allocates. Not thread-safe.
 *
 * <p>Only UD SEND Only (OpCode 0x64) is accepted: it is the one packet type IPoIB and
 * subnet-administration MADs use. Raw packets (LNH 0 or 1) carry no BTH and are refused.
 */
public final class UdPacket {
    /** The largest payload an IBA packet carries (the 4096-octet MTU, IBA §7.7.8). */
    public static final int MAX_PAYLOAD = 4096;
    /** Headers, ICRC and VCRC of a local packet: the length of one with an empty payload. */
    public static final int LOCAL_OVERHEAD = Lrh.LENGTH + Bth.LENGTH + Deth.LENGTH + Icrc.LENGTH + Vcrc.LENGTH;
    /** Headers, ICRC and VCRC of a global packet. */
    public static final int GLOBAL_OVERHEAD = LOCAL_OVERHEAD + Grh.LENGTH;
    /** The longest packet LRH PktLen can describe, VCRC included. */
    public static final int MAX_PACKET_LENGTH = Lrh.MAX_PACKET_LENGTH_WORDS * 4 + Vcrc.LENGTH;

    private final Lrh lrh = new Lrh();
    private final Grh grh = new Grh();
    private final Bth bth = new Bth();
    private final Deth deth = new Deth();
    private boolean global;
    private long payloadOffset;
    private int payloadLength;
    private int packetLength;

    public Lrh lrh() {
        return lrh;
    }

    /** The GRH; written and read only for global packets. */
    public Grh grh() {
        return grh;
    }

    public Bth bth() {
        return bth;
    }

    public Deth deth() {
        return deth;
    }

    /** Whether the packet carries a GRH. */
    public boolean global() {
        return global;
    }

    /** Chooses a global (with GRH) or local packet for the next {@link #encode}. */
    public UdPacket global(boolean withGrh) {
        this.global = withGrh;
        return this;
    }

    /** Octets before the payload: LRH, GRH if global, BTH, DETH. */
    public int headerLength() {
        return headerLength(global);
    }

    /** Octets before the payload of a local or global packet. */
    public static int headerLength(boolean withGrh) {
        return Lrh.LENGTH + (withGrh ? Grh.LENGTH : 0) + Bth.LENGTH + Deth.LENGTH;
    }

    /** Octets a packet with this payload occupies, pad, ICRC and VCRC included. */
    public static int encodedLength(boolean withGrh, int payloadLength) {
        checkPayloadLength(payloadLength);
        return headerLength(withGrh) + (payloadLength + 3 & ~3) + Icrc.LENGTH + Vcrc.LENGTH;
    }

    /** Where the payload starts, from the start of the segment last encoded or decoded. */
    public long payloadOffset() {
        return payloadOffset;
    }

    /** Payload octets, pad excluded. */
    public int payloadLength() {
        return payloadLength;
    }

    /** Octets of the whole packet last encoded or decoded, VCRC included. */
    public int packetLength() {
        return packetLength;
    }

    /**
     * Writes the whole packet at {@code offset}: headers, a copy of the payload, zero pad, ICRC
     * and VCRC. The payload may already lie in place in {@code destination} (same segment and
     * offset {@code offset + headerLength()}).
     *
     * @return octets written ({@link #encodedLength})
     * @throws IllegalArgumentException when the payload exceeds {@link #MAX_PAYLOAD}
     * @throws IndexOutOfBoundsException when a segment is too small
     */
    public int encode(MemorySegment destination, long offset, MemorySegment payload, long payloadFrom,
                      int payloadBytes) {
        checkPayloadLength(payloadBytes);
        MemorySegment.copy(payload, payloadFrom, destination, offset + headerLength(), payloadBytes);
        return encodeAroundPayload(destination, offset, payloadBytes);
    }

    /**
     * Writes headers, pad, ICRC and VCRC around a payload the caller has already placed at
     * {@code offset + headerLength()} (zero copy).
     *
     * @return octets of the packet ({@link #encodedLength})
     * @throws IllegalArgumentException when the payload exceeds {@link #MAX_PAYLOAD}
     * @throws IndexOutOfBoundsException when the segment is too small
     */
    public int encodeAroundPayload(MemorySegment packet, long offset, int payloadBytes) {
        int total = encodedLength(global, payloadBytes);
        Objects.checkFromIndexSize(offset, total, packet.byteSize());
        int headers = headerLength();
        int pad = -payloadBytes & 3;
        int icrcOffset = total - Vcrc.LENGTH - Icrc.LENGTH;

        lrh.linkVersion(Lrh.LINK_VERSION)
                .linkNextHeader(global ? Lrh.LNH_IBA_GLOBAL : Lrh.LNH_IBA_LOCAL)
                .packetLengthWords((total - Vcrc.LENGTH) / 4);
        lrh.encode(packet, offset);
        long next = offset + Lrh.LENGTH;
        if (global) {
            grh.nextHeader(Grh.NEXT_HEADER_IBA).payloadLength(total - Vcrc.LENGTH - Lrh.LENGTH - Grh.LENGTH);
            grh.encode(packet, next);
            next += Grh.LENGTH;
        }
        bth.opcode(Bth.OPCODE_UD_SEND_ONLY).padCount(pad).transportVersion(Bth.TRANSPORT_VERSION);
        bth.encode(packet, next);
        deth.encode(packet, next + Bth.LENGTH);
        for (int i = 0; i < pad; i++) {
            Wire.put8(packet, offset + headers + payloadBytes + i, 0);
        }
        Icrc.write(packet, offset, icrcOffset);
        Vcrc.write(packet, offset, total - Vcrc.LENGTH);

        payloadOffset = offset + headers;
        payloadLength = payloadBytes;
        packetLength = total;
        return total;
    }

    /**
     * Reads and verifies the packet of {@code length} octets at {@code offset}, in the order a
     * receiving port does: VCRC (link layer), headers, ICRC (transport).
     *
     * <p>On failure the header views hold whatever was read before the fault.
     *
     * @throws DecodeException naming the field and its offset: "IBA packet" (truncated or too long),
     *         "VCRC", "LRH LVer", "LRH LNH", "LRH PktLen" (disagrees with the length or too short),
     *         "GRH IPVer", "GRH NxtHdr", "GRH PayLen", "BTH OpCode", "BTH TVer", "BTH PadCnt",
     *         "ICRC"
     */
    public UdPacket decode(MemorySegment source, long offset, long length) throws DecodeException {
        Wire.require(source, offset, length, "IBA packet");
        if (length < LOCAL_OVERHEAD) {
            throw new DecodeException("IBA packet", offset, "truncated: " + length
                    + " octets, a UD packet has at least " + LOCAL_OVERHEAD);
        }
        if (length > MAX_PACKET_LENGTH) {
            throw new DecodeException("IBA packet", offset, length + " octets, longer than the " + MAX_PACKET_LENGTH
                    + " that LRH PktLen can describe");
        }
        int vcrcOffset = (int) length - Vcrc.LENGTH;
        Vcrc.verify(source, offset, vcrcOffset);

        lrh.decode(source, offset);
        int lnh = lrh.linkNextHeader();
        if (lnh != Lrh.LNH_IBA_LOCAL && lnh != Lrh.LNH_IBA_GLOBAL) {
            throw new DecodeException("LRH LNH", offset + 1, "LNH " + lnh
                    + " is a raw packet; only IBA transport packets (LNH 2 local, 3 global) are decoded");
        }
        boolean withGrh = lnh == Lrh.LNH_IBA_GLOBAL;
        int words = lrh.packetLengthWords();
        if ((long) words * 4 + Vcrc.LENGTH != length) {
            throw new DecodeException("LRH PktLen", offset + 4, "says " + words + " words (" + (words * 4 + Vcrc.LENGTH)
                    + " octets with the VCRC) but the packet has " + length + " octets");
        }
        int headers = headerLength(withGrh);
        if (length < headers + Icrc.LENGTH + Vcrc.LENGTH) {
            throw new DecodeException("LRH PktLen", offset + 4, words + " words cannot hold the "
                    + (withGrh ? "global" : "local") + " headers and the ICRC (" + (headers + Icrc.LENGTH) + " octets)");
        }
        long next = offset + Lrh.LENGTH;
        if (withGrh) {
            grh.decode(source, next);
            if (grh.nextHeader() != Grh.NEXT_HEADER_IBA) {
                throw new DecodeException("GRH NxtHdr", next + 6, String.format(
                        "next header 0x%02x, an IBA transport packet has 0x1B", grh.nextHeader()));
            }
            int expected = words * 4 - Lrh.LENGTH - Grh.LENGTH;
            if (grh.payloadLength() != expected) {
                throw new DecodeException("GRH PayLen", next + 4, "says " + grh.payloadLength()
                        + " octets, LRH PktLen leaves " + expected + " after the GRH");
            }
            next += Grh.LENGTH;
        }
        bth.decode(source, next);
        if (bth.opcode() != Bth.OPCODE_UD_SEND_ONLY) {
            throw new DecodeException("BTH OpCode", next, String.format(
                    "opcode 0x%02x; only UD SEND Only (0x64) is decoded", bth.opcode()));
        }
        deth.decode(source, next + Bth.LENGTH);
        int padded = (int) length - headers - Icrc.LENGTH - Vcrc.LENGTH;
        if (bth.padCount() > padded) {
            throw new DecodeException("BTH PadCnt", next + 1, "pad of " + bth.padCount()
                    + " octets but only " + padded + " follow the headers");
        }
        int payload = padded - bth.padCount();
        if (payload > MAX_PAYLOAD) {
            throw new DecodeException("LRH PktLen", offset + 4, "payload of " + payload
                    + " octets exceeds the largest IBA MTU, " + MAX_PAYLOAD);
        }
        Icrc.verify(source, offset, vcrcOffset - Icrc.LENGTH);

        global = withGrh;
        payloadOffset = offset + headers;
        payloadLength = payload;
        packetLength = (int) length;
        return this;
    }

    private static void checkPayloadLength(int payloadLength) {
        if (payloadLength < 0 || payloadLength > MAX_PAYLOAD) {
            throw new IllegalArgumentException("payload of " + payloadLength + " octets: allowed 0.." + MAX_PAYLOAD
                    + " (the largest IBA MTU)");
        }
    }

    @Override
    public String toString() {
        return "UdPacket[" + lrh + (global ? " " + grh : "") + " " + bth + " " + deth + " payload " + payloadLength
                + " octets]";
    }
}
