package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import ipoib.api.Guid;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A host channel adapter (IBA 11.2.1 query HCA), with one protection domain that all its
 * resources share.
 */
@ProviderType
public interface Device {

    /** The device name ({@code mlx5_0}, {@code loop0}). */
    String name();

    /** The node GUID. */
    Guid nodeGuid();

    /** The ports, numbered from 1. */
    List<Port> ports();

    /**
     * The port with that number.
     *
     * @throws VerbsException when there is no such port
     */
    default Port port(int number) {
        for (Port p : ports()) {
            if (p.number() == number) {
                return p;
            }
        }
        throw new VerbsException("device " + name() + " has no port " + number + "; ports are 1.." + ports().size());
    }

    /**
     * Registers memory for send and receive buffers (IBA 11.2.8). The segment must stay alive
     * until the region is closed; for real hardware it should be native memory.
     *
     * @throws VerbsException when the provider cannot register it
     */
    MemoryRegion registerMemory(MemorySegment segment);
}
