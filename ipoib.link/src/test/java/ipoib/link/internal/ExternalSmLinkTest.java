package ipoib.link.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ipoib.api.link.LinkState;
import ipoib.runtime.ManualControlLoop;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import org.junit.jupiter.api.Test;

/** A link on a loopback subnet managed by an external SM that has not swept it yet (sm=external). */
class ExternalSmLinkTest {

    @Test
    void aPortWithoutALidIsDownAndSaysTheSubnetManagerHasNotSweptIt() {
        ManualControlLoop loop = new ManualControlLoop();
        // No SM attaches to the management plane: nothing assigns LIDs or makes ports ACTIVE.
        try (LoopbackSubnet subnet = new LoopbackSubnet(FabricConfig.defaults(), 200, 5, 0, true, true)) {
            LinkFixture fixture = new LinkFixture();
            LinkEngine engine = new LinkEngine(LinkFixture.config("a", "loop0"), fixture.hooks, loop);
            try {
                engine.providerAvailable(subnet);
                loop.runPending();
                assertEquals(LinkState.DOWN, engine.state());
                String state = subnet.devices().getFirst().ports().getFirst().attributes().state().toString();
                assertEquals("port loop0/1 is " + state + ", no LID yet: the subnet manager has not swept it",
                        engine.stateReason());
            } finally {
                engine.close();
                fixture.close();
            }
        }
    }
}
