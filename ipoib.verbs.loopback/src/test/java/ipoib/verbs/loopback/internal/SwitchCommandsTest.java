package ipoib.verbs.loopback.internal;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import ipoib.api.IbMtu;
import ipoib.api.Rate;
import ipoib.verbs.loopback.fabric.FabricConfig;
import ipoib.verbs.loopback.fabric.LoopbackSubnet;
import ipoib.verbs.loopback.subnet.NetFile;
import ipoib.verbs.loopback.subnet.Port;
import ipoib.verbs.loopback.subnet.PortState;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** {@code fabric:topology}, {@code fabric:ports} and {@code fabric:down/up} on switch ports, on the two-switch example. */
class SwitchCommandsTest {
    private LoopbackSubnet subnet;
    private FabricCommands commands;
    private Path example;

    @BeforeEach
    void setUp() {
        Path dir = Path.of("").toAbsolutePath();
        while (!Files.isDirectory(dir.resolve("examples"))) {
            dir = dir.getParent();
        }
        example = dir.resolve("examples/two-switches.net");
        FabricConfig d = FabricConfig.defaults();
        subnet = new LoopbackSubnet(new FabricConfig(1, 1, d.subnetPrefix(), d.nodeGuidBase(), IbMtu.MTU_2048,
                Rate.RATE_10_GBPS, d.partitions(), 1, 0, example.toString()), 200, 3);
        commands = new FabricCommands(subnet.fabric(), subnet.subnetAdministrator());
    }

    @AfterEach
    void tearDown() {
        subnet.close();
    }

    @Test
    void topologyShowsNodesPortsPeersLidsAndStates() {
        String out = commands.topology();
        assertTrue(out.contains("switch sw1  GUID 0x"), out);
        assertTrue(out.contains("hca    hca1  GUID 0x"), out);
        assertTrue(out.contains("device loop1"), out);
        assertTrue(out.matches("(?s).*\\[7\\] \"sw2\"\\[7\\] +ACTIVE +LINK_UP.*"), out);
        assertTrue(out.contains("LID " + subnet.fabric().port("loop1", 1).attributes().lid().value()), out);
    }

    @Test
    void topologyNetIsANetFileOfTheSameSubnet() {
        String net = commands.topology("--net");
        var again = NetFile.parse("fabric:topology --net", net);
        assertEquals(subnet.fabric().topology().nodes().size(), again.nodes().size());
        assertEquals(subnet.fabric().topology().links().size(), again.links().size());
        assertEquals(subnet.fabric().topology().node("sw2").nodeGuid(), again.node("sw2").nodeGuid());
    }

    @Test
    void downAndUpWorkOnASwitchPortInBothSyntaxes() {
        Port sw1port7 = subnet.fabric().topology().node("sw1").port(7);
        assertEquals("sw1/7 DOWN (and its peer sw2/7)", commands.down("sw1", "7"));
        assertTrue(!sw1port7.linkUp());
        assertEquals(PortState.DOWN, sw1port7.peer().state());
        assertEquals("sw1/7 ACTIVE (and its peer sw2/7)", commands.up("sw1/7"));
        assertEquals(PortState.ACTIVE, sw1port7.state());
        assertEquals(PortState.ACTIVE, sw1port7.peer().state());
    }

    @Test
    void upUnderAnExternalSmSaysThePortWaitsForItsSweep() {
        FabricConfig d = FabricConfig.defaults();
        LoopbackSubnet managed = new LoopbackSubnet(new FabricConfig(1, 1, d.subnetPrefix(), d.nodeGuidBase(),
                IbMtu.MTU_2048, Rate.RATE_10_GBPS, d.partitions(), 1, 0, example.toString()), 200, 3, 0, false, true);
        try {
            FabricCommands external = new FabricCommands(managed.fabric(), managed.subnetAdministrator());
            Port sw1port7 = managed.fabric().topology().node("sw1").port(7);
            external.down("sw1", "7");
            // No SM has swept the link since it came up: it is INIT, as a real switch port would be.
            assertEquals("sw1/7 INIT (and its peer sw2/7): the subnet manager activates it when it sweeps",
                    external.up("sw1", "7"));
            assertEquals(PortState.INIT, sw1port7.state());
        } finally {
            managed.close();
        }
    }

    @Test
    void downOnAnHcaKeepsItsSyntaxAndAnswer() {
        assertEquals("loop1/1 DOWN (and its peer sw2/1)", commands.down("loop1/1"));
        assertEquals("DOWN", subnet.fabric().port("loop1", 1).attributes().state().toString());
        commands.up("loop1/1");
        assertEquals("ACTIVE", subnet.fabric().port("loop1", 1).attributes().state().toString());
    }

    @Test
    void anUnknownNodeOrPortIsRefusedNamingWhatExists() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> commands.down("sw9", "1"));
        assertTrue(e.getMessage().contains("no device or node 'sw9'"), e.getMessage());
        assertTrue(e.getMessage().contains("sw1, sw2"), e.getMessage());
        assertTrue(e.getMessage().contains("usage: fabric:down <device/port> | <node> <port>"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> commands.up("sw1", "5"));
        assertTrue(e.getMessage().contains("has no cable"), e.getMessage());
    }

    @Test
    void portsListsEveryCabledPortWithItsDrops() {
        String out = commands.ports();
        assertTrue(out.contains("sw1/7"), out);
        assertTrue(out.contains("loop0/1"), out);
        assertTrue(out.contains("drop_route_port_inactive 0"), out);
        assertTrue(!out.contains("sw1/5"), "an uncabled port is not listed: " + out);
    }

    @Test
    void aTopologyThatCannotBeReadIsRefusedNamingTheProperty() {
        String refusal = LoopbackProvider.refusal(Map.of("topology", "/nonexistent/net"));
        assertTrue(refusal.startsWith("invalid loopback property 'topology' value '/nonexistent/net': cannot read it"),
                refusal);
    }
}
