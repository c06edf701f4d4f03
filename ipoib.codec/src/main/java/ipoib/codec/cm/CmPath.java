package ipoib.codec.cm;

import static ipoib.codec.Fields.bits;
import static ipoib.codec.Fields.notNull;
import static ipoib.codec.cm.CmFields.bitsOf;
import static ipoib.codec.cm.CmFields.octet;

import ipoib.api.Gid;
import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * A path of a REQ (IBA table 106, octets 52–95 for the primary path and 96–139 for the alternate):
 * the 44 octets the passive side needs to reach the active side.
 *
 * @param localLid the active side's port LID, 16 bits
 * @param remoteLid the passive side's port LID, 16 bits
 * @param localGid the active side's port GID
 * @param remoteGid the passive side's port GID
 * @param flowLabel 20 bits
 * @param packetRate 6 bits (IBA rate code, 3 = 10 Gb/s)
 * @param trafficClass 8 bits
 * @param hopLimit 8 bits
 * @param serviceLevel 4 bits
 * @param subnetLocal whether the path stays in the subnet (no GRH needed)
 * @param localAckTimeout 5 bits (4.096 µs × 2^value)
 */
public record CmPath(int localLid, int remoteLid, Gid localGid, Gid remoteGid, int flowLabel, int packetRate,
                     int trafficClass, int hopLimit, int serviceLevel, boolean subnetLocal, int localAckTimeout) {

    /** Octets of one path. */
    public static final int LENGTH = 44;

    public CmPath {
        bits("CM path local LID", localLid, 16);
        bits("CM path remote LID", remoteLid, 16);
        notNull("CM path local GID", localGid);
        notNull("CM path remote GID", remoteGid);
        bits("CM path flow label", flowLabel, 20);
        bits("CM path packet rate", packetRate, 6);
        bits("CM path traffic class", trafficClass, 8);
        bits("CM path hop limit", hopLimit, 8);
        bits("CM path SL", serviceLevel, 4);
        bits("CM path local ACK timeout", localAckTimeout, 5);
    }

    /** Writes the path; the last octet's low three bits are left to the caller (the REQ's SAP bit). */
    void encode(MemorySegment s, long p) {
        Wire.put16(s, p, localLid);
        Wire.put16(s, p + 2, remoteLid);
        Fields.putGid(s, p + 4, localGid);
        Fields.putGid(s, p + 20, remoteGid);
        Wire.put32(s, p + 36, flowLabel << 12 | packetRate);
        Wire.put8(s, p + 40, trafficClass);
        Wire.put8(s, p + 41, hopLimit);
        Wire.put8(s, p + 42, octet(serviceLevel, 4, subnetLocal ? 1 : 0, 1));
        Wire.put8(s, p + 43, octet(localAckTimeout, 5));
    }

    static CmPath decode(MemorySegment s, long p) throws DecodeException {
        int word = Wire.u32(s, p + 36);
        return new CmPath(Wire.u16(s, p), Wire.u16(s, p + 2), Fields.gid(s, p + 4), Fields.gid(s, p + 20),
                word >>> 12, word & 0x3F, Wire.u8(s, p + 40), Wire.u8(s, p + 41), bitsOf(s, p + 42, 0, 4),
                bitsOf(s, p + 42, 4, 1) == 1, bitsOf(s, p + 43, 0, 5));
    }

    static boolean isAbsent(MemorySegment s, long p) {
        for (int i = 0; i < LENGTH; i++) {
            if (Wire.u8(s, p + i) != 0 && !(i == LENGTH - 1 && (Wire.u8(s, p + i) & 0xF8) == 0)) {
                return false;
            }
        }
        return true;
    }
}
