package ipoib.codec.smp;

import ipoib.codec.DecodeException;
import ipoib.codec.Fields;
import ipoib.codec.Wire;
import java.lang.foreign.MemorySegment;

/**
 * NodeInfo (IBA 1.2.1 §14.2.5.3), 40 octets.
 *
 * <pre>
 * 0 BaseVersion  1 ClassVersion  2 NodeType  3 NumPorts  4-11 SystemImageGUID  12-19 NodeGUID
 * 20-27 PortGUID  28-29 PartitionCap  30-31 DeviceID  32-35 Revision  36 LocalPortNum  37-39 VendorID
 * </pre>
 *
 * @param nodeType 1 channel adapter, 2 switch, 3 router
 * @param localPortNum the port the SMP arrived through
 */
public record NodeInfo(int baseVersion, int classVersion, int nodeType, int numPorts, long systemImageGuid,
        long nodeGuid, long portGuid, int partitionCap, int deviceId, int revision, int localPortNum, int vendorId) {
    public static final int LENGTH = 40;

    public NodeInfo {
        Fields.bits("NodeInfo BaseVersion", baseVersion, 8);
        Fields.bits("NodeInfo ClassVersion", classVersion, 8);
        Fields.bits("NodeInfo NodeType", nodeType, 8);
        Fields.bits("NodeInfo NumPorts", numPorts, 8);
        Fields.bits("NodeInfo PartitionCap", partitionCap, 16);
        Fields.bits("NodeInfo DeviceID", deviceId, 16);
        Fields.bits("NodeInfo LocalPortNum", localPortNum, 8);
        Fields.bits("NodeInfo VendorID", vendorId, 24);
    }

    public void encode(MemorySegment s, long o) {
        Wire.check(s, o, LENGTH, "NodeInfo");
        Wire.put8(s, o, baseVersion);
        Wire.put8(s, o + 1, classVersion);
        Wire.put8(s, o + 2, nodeType);
        Wire.put8(s, o + 3, numPorts);
        Wire.put64(s, o + 4, systemImageGuid);
        Wire.put64(s, o + 12, nodeGuid);
        Wire.put64(s, o + 20, portGuid);
        Wire.put16(s, o + 28, partitionCap);
        Wire.put16(s, o + 30, deviceId);
        Wire.put32(s, o + 32, revision);
        Wire.put8(s, o + 36, localPortNum);
        Wire.put24(s, o + 37, vendorId);
    }

    public static NodeInfo decode(MemorySegment s, long o) throws DecodeException {
        Wire.require(s, o, LENGTH, "NodeInfo");
        return new NodeInfo(Wire.u8(s, o), Wire.u8(s, o + 1), Wire.u8(s, o + 2), Wire.u8(s, o + 3), Wire.u64(s, o + 4),
                Wire.u64(s, o + 12), Wire.u64(s, o + 20), Wire.u16(s, o + 28), Wire.u16(s, o + 30), Wire.u32(s, o + 32),
                Wire.u8(s, o + 36), Wire.u24(s, o + 37));
    }
}
