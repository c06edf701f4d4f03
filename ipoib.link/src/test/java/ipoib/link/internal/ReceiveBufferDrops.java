package ipoib.link.internal;

import ipoib.api.QKey;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkCounters;
import ipoib.api.link.LinkState;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.CompletionQueue;
import ipoib.api.verbs.MemoryRegion;
import ipoib.api.verbs.Port;
import ipoib.api.verbs.UdQueuePair;
import ipoib.api.verbs.UdQueuePairConfig;
import ipoib.verbs.loopback.fabric.Fabric;
import ipoib.verbs.loopback.fabric.FabricConfig;
import java.lang.foreign.Arena;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;

/**
 * For the tests of what the shell and the metrics show: a loopback fabric on which datagrams were
 * dropped at port loop1/1 because the receiving queue pair had no posted buffer, and an interface
 * on that port (only what the report and the metrics read of it).
 */
public final class ReceiveBufferDrops implements AutoCloseable {
    private static final QKey QKEY = QKey.of(0x0b1b);
    private final Fabric fabric;
    public final Port receivingPort;

    /** A fabric on which {@code drops} datagrams to a queue pair of loop1/1 without receive buffers were dropped. */
    public ReceiveBufferDrops(int drops) {
        fabric = new Fabric(FabricConfig.defaults());
        fabric.start();
        fabric.receiveBufferHold(Duration.ZERO); // the receiver posts nothing: waiting would change nothing
        Port sending = fabric.devices().get(0).loopPorts().get(0);
        receivingPort = fabric.devices().get(1).loopPorts().get(0);
        CompletionQueue sendCq = sending.createCompletionQueue(16);
        CompletionQueue receiveCq = receivingPort.createCompletionQueue(16);
        UdQueuePair receiver = receivingPort.createUdQueuePair(new UdQueuePairConfig(receiveCq, receiveCq, 4, 4, 0,
                QKEY, false));
        UdQueuePair sender = sending.createUdQueuePair(new UdQueuePairConfig(sendCq, sendCq, 16, 4, 0, QKEY, false));
        MemoryRegion region = sending.device().registerMemory(Arena.ofAuto().allocate(64));
        var toReceiver = sending.createAddressHandle(AddressVector.local(receivingPort.attributes().lid(), 0));
        for (int i = 0; i < drops; i++) {
            sender.postSend(i, region, 0, 64, toReceiver, receiver.qpn(), QKEY);
        }
    }

    /** An UP interface named {@code name} on the receiving port, with no traffic of its own. */
    public IpoibLink linkOnTheReceivingPort(String name) {
        return (IpoibLink) Proxy.newProxyInstance(IpoibLink.class.getClassLoader(), new Class<?>[] {IpoibLink.class},
                (proxy, method, args) -> switch (method.getName()) {
                    case "name" -> name;
                    case "state" -> LinkState.UP;
                    case "port" -> receivingPort;
                    case "mtu" -> 2044;
                    case "counters" -> new LinkCounters(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
                    case "dropCounters" -> Map.of();
                    case "toString" -> name;
                    case "hashCode" -> System.identityHashCode(proxy);
                    case "equals" -> proxy == args[0];
                    default -> throw new UnsupportedOperationException(method.getName());
                });
    }

    @Override
    public void close() {
        fabric.close();
    }
}
