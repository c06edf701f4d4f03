package ipoib.verbs.loopback.fabric;

import ipoib.api.Guid;
import ipoib.api.verbs.Device;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.VerbsException;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;

/** An HCA of the loopback fabric. */
public final class LoopDevice implements Device {
    /** Lowest QPN handed out: 0 and 1 are the management QPs, low numbers are reserved as on hardware. */
    static final int FIRST_QPN = 0x48;

    final Fabric fabric;
    private final String name;
    private final Guid nodeGuid;
    private final List<LoopPort> ports;
    private final AtomicInteger nextKey = new AtomicInteger(0x100);
    private final SplittableRandom qpnRandom;
    private int nextQpn;

    /** The HCA node of the subnet model. */
    final ipoib.verbs.loopback.subnet.Node model;

    LoopDevice(Fabric fabric, int index, ipoib.verbs.loopback.subnet.Node model, long seed) {
        this.fabric = fabric;
        this.model = model;
        this.name = "loop" + index;
        this.nodeGuid = Guid.of(model.nodeGuid());
        int portCount = model.portCount();
        this.qpnRandom = new SplittableRandom(seed ^ (0x9E3779B97F4A7C15L * (index + 1)));
        this.nextQpn = FIRST_QPN + qpnRandom.nextInt(0x1000);
        LoopPort[] p = new LoopPort[portCount];
        for (int i = 0; i < portCount; i++) {
            p[i] = new LoopPort(this, model.port(i + 1));
        }
        this.ports = List.of(p);
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Guid nodeGuid() {
        return nodeGuid;
    }

    @Override
    public List<Port> ports() {
        return List.copyOf(ports);
    }

    public List<LoopPort> loopPorts() {
        return ports;
    }

    @Override
    public MemoryRegion registerMemory(MemorySegment segment) {
        if (segment == null) {
            throw new VerbsException("registerMemory: segment is null");
        }
        fabric.checkOpen();
        return new LoopMemoryRegion(this, segment, nextKey.getAndIncrement());
    }

    /**
     * The next QPN: increasing like a hardware allocator, with a random stride so that numbers
     * are neither sequential from 1 nor reused soon after a reset.
     */
    synchronized int allocateQpn() {
        nextQpn += 1 + qpnRandom.nextInt(7);
        if (nextQpn >= 0xFF_FFFF) {
            nextQpn = FIRST_QPN;
        }
        return nextQpn;
    }

    @Override
    public String toString() {
        return name;
    }
}
