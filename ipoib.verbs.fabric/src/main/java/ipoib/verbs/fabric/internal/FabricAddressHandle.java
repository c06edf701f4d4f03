package ipoib.verbs.fabric.internal;

import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import java.lang.foreign.MemorySegment;

/** An {@code ibv_ah} of the device's protection domain. */
final class FabricAddressHandle implements AddressHandle {
    final FabricDevice device;
    final MemorySegment ah;
    private final AddressVector vector;
    private volatile boolean closed;

    FabricAddressHandle(FabricDevice device, MemorySegment ah, AddressVector vector) {
        this.device = device;
        this.ah = ah;
        this.vector = vector;
    }

    @Override
    public AddressVector vector() {
        return vector;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        device.closeAddressHandle(this);
    }

    /** Destroys; called by the device, once. */
    void destroy() {
        if (closed) {
            return;
        }
        closed = true;
        device.call("ibv_destroy_ah", () -> (int) device.ibv.destroyAh.invokeExact(ah));
    }
}
