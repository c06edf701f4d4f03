package ipoib.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The PIDs the wait for the default configurations looks for: those of the defaults bundle's Configurator JSON. */
class DefaultsAppliedTest {
    @Test
    void theDefaultInterfacesAndAddressesAreThePidsWaitedFor() throws IOException {
        String json = Files.readString(Path.of("../ipoib.defaults/src/main/resources/OSGI-INF/configurator/ipoib-defaults.json"));
        assertEquals(List.of("ipoib.link~default-loop0", "ipoib.link~default-loop1", "ipoib.address~default-ib0_1_ffff",
                "ipoib.address~default-ib1_1_ffff"), DefaultsApplied.pids(json));
    }
}
