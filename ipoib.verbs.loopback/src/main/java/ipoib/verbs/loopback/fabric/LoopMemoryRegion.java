package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.VerbsException;
import java.lang.foreign.MemorySegment;

/** Registered memory of a loopback device: the segment and a key; nothing to pin. */
final class LoopMemoryRegion implements MemoryRegion {
    private final LoopDevice device;
    private final MemorySegment segment;
    private final int localKey;
    private volatile boolean closed;

    LoopMemoryRegion(LoopDevice device, MemorySegment segment, int localKey) {
        this.device = device;
        this.segment = segment;
        this.localKey = localKey;
    }

    @Override
    public MemorySegment segment() {
        return segment;
    }

    @Override
    public int localKey() {
        return localKey;
    }

    /** Throws unless [offset, offset+length) lies in this open region of {@code expected}'s device. */
    void check(LoopDevice expected, long offset, int length, String operation) {
        if (closed) {
            throw new VerbsException(operation + ": memory region " + localKey + " is deregistered");
        }
        if (device != expected) {
            throw new VerbsException(operation + ": memory region " + localKey + " belongs to device " + device.name()
                    + ", not " + expected.name());
        }
        if (offset < 0 || length < 0 || offset > segment.byteSize() - length) {
            throw new VerbsException(operation + ": buffer [" + offset + ", +" + length + ") is outside memory region "
                    + localKey + " of " + segment.byteSize() + " octets");
        }
    }

    @Override
    public void close() {
        closed = true;
    }
}
