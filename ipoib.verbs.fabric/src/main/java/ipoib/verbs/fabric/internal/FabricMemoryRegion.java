package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.fabric.ffi.Structs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/** An {@code ibv_mr} over a caller-owned native segment (the link's pooled buffers). */
// Restricted methods (native calls, reinterpreting driver pointers) are this code's purpose;
// the JVM runs with --enable-native-access.
@SuppressWarnings("restricted")
final class FabricMemoryRegion implements MemoryRegion {
    final FabricDevice device;
    private final MemorySegment segment;
    private final MemorySegment mr;
    final long address;
    final long size;
    private final int lkey;
    private volatile boolean closed;

    FabricMemoryRegion(FabricDevice device, MemorySegment segment, MemorySegment mr) {
        this.device = device;
        this.segment = segment;
        this.mr = mr.reinterpret(Structs.IBV_MR.byteSize());
        this.address = segment.address();
        this.size = segment.byteSize();
        this.lkey = this.mr.get(ValueLayout.JAVA_INT, Structs.offset(Structs.IBV_MR, "lkey"));
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public int localKey() {
        return lkey;
    }

    /** {@code region} as a region of {@code device}, or why a post cannot use it. */
    static FabricMemoryRegion of(MemoryRegion region, FabricDevice device, String what) {
        if (!(region instanceof FabricMemoryRegion mr) || mr.device != device) {
            throw new VerbsException(what + ": the memory region was not registered with device " + device.name());
        }
        return mr;
    }

    /** The address of a buffer of this region, checked to lie inside it. */
    long bufferAddress(long offset, int length, String what) {
        if (closed) {
            throw new VerbsException(what + ": memory region is closed");
        }
        if (offset < 0 || length < 0 || offset > size - length) {
            throw new VerbsException(what + ": buffer [" + offset + ", +" + length + ") lies outside the region of "
                    + size + " octets");
        }
        return address + offset;
    }

    @Override
    public void close() {
        device.closeMemoryRegion(this);
    }

    /** Deregisters; called by the device, once. */
    void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        device.call("ibv_dereg_mr", () -> (int) device.ibv.deregMr.invokeExact(mr));
    }

    boolean isClosed() {
        return closed;
    }
}
