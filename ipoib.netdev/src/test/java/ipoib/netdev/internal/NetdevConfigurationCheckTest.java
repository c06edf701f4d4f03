package ipoib.netdev.internal;

import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** A bridged interface's configuration is checked against its metatype before the device is made. */
class NetdevConfigurationCheckTest {

    @Test
    void offloadMustBeABoolean() {
        String problem = NetdevComponent.CHECK.problems(Map.of("link", "ib0_1_ffff", "offload", "nope"));
        assertTrue(problem != null && problem.contains("offload") && problem.contains("nope"), String.valueOf(problem));
        assertNull(NetdevComponent.CHECK.problems(Map.of("link", "ib0_1_ffff", "offload", false)));
        assertNull(NetdevComponent.CHECK.problems(Map.of("link", "ib0_1_ffff", "addresses", new String[] {"10.0.0.1/24"},
                "offload", true)));
    }
}
