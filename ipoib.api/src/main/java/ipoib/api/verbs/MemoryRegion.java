package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import java.lang.foreign.MemorySegment;

/** Registered memory: the only memory that send and receive work requests may use. */
@ProviderType
public interface MemoryRegion extends AutoCloseable {

    /** The registered segment. */
    MemorySegment segment();

    /** The local key of the registration. */
    int localKey();

    /** Deregisters the memory; posted work requests that use it must have completed. */
    @Override
    void close();
}
