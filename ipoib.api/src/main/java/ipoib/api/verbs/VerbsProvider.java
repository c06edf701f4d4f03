package ipoib.api.verbs;

import org.osgi.annotation.versioning.ProviderType;
import java.util.List;
import java.util.Optional;

/**
 * An InfiniBand provider: the devices (HCAs) it drives. Registered as an OSGi service with the
 * property {@value #NAME_PROPERTY} so that links can select it with a target filter, e.g.
 * {@code (ipoib.provider=loopback)}.
 *
 * <p>A provider that has no devices (no hardware, no kernel support) still registers and says
 * why in {@link #status()}.
 */
@ProviderType
public interface VerbsProvider {

    /** Service property: the provider's name ({@code loopback}, {@code fabric}). */
    String NAME_PROPERTY = "ipoib.provider";

    /** The provider's name, the same as its {@value #NAME_PROPERTY} property. */
    String name();

    /** Whether the provider can be used, and why not. */
    ProviderStatus status();

    /** The devices, in a stable order; empty when {@link #status()} is not available. */
    List<Device> devices();

    /** The device of that name ({@code mlx5_0}, {@code loop0}), if any. */
    default Optional<Device> device(String name) {
        return devices().stream().filter(d -> d.name().equals(name)).findFirst();
    }
}
