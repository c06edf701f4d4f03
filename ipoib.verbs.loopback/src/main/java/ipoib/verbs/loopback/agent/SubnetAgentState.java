package ipoib.verbs.loopback.agent;

import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import java.util.IdentityHashMap;
import java.util.Map;

/**
 * What the agents keep beside the subnet model: each switch's SwitchInfo state and each port's VL
 * tables, made on first use. Guarded by the topology's lock.
 */
final class SubnetAgentState {
    private final Map<Node, SwitchState> switches = new IdentityHashMap<>();
    private final Map<Port, VlTables> vlTables = new IdentityHashMap<>();

    SwitchState switchState(Node node) {
        return switches.computeIfAbsent(node, n -> new SwitchState());
    }

    VlTables vlTables(Port port) {
        return vlTables.computeIfAbsent(port,
                p -> new VlTables(p.node().isSwitch() ? p.node().portCount() + 1 : 1));
    }
}
