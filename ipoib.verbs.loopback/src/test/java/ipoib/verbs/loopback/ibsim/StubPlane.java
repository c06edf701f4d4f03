package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.subnet.Attachment;
import ipoib.verbs.loopback.subnet.MadReceiver;
import ipoib.verbs.loopback.subnet.ManagementPlane;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/** A management plane that answers the controls with given attribute bytes and records the MADs it is sent. */
final class StubPlane implements ManagementPlane {
    /** One node's answers. */
    record NodeAnswers(String name, int port, byte[] nodeInfo, Map<Integer, byte[]> portInfos, byte[] pkeys,
                       byte[] vendor) {}

    /** A MAD a client sent. */
    record Sent(String node, int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {}

    private final Map<String, NodeAnswers> nodes;
    private final String defaultNode;
    final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    final List<StubAttachment> attachments = new CopyOnWriteArrayList<>();

    StubPlane(String defaultNode, Map<String, NodeAnswers> nodes) {
        this.defaultNode = defaultNode;
        this.nodes = nodes;
    }

    @Override
    public Attachment attach(String nodeId, boolean isSm, MadReceiver receiver) {
        NodeAnswers n = nodes.get(nodeId.isEmpty() ? defaultNode : nodeId);
        if (n == null) {
            throw new IllegalArgumentException("no node \"" + nodeId + "\" in the topology");
        }
        StubAttachment a = new StubAttachment(n, receiver, isSm);
        attachments.add(a);
        return a;
    }

    final class StubAttachment implements Attachment {
        final NodeAnswers node;
        final MadReceiver receiver;
        volatile boolean sm;
        volatile boolean closed;

        StubAttachment(NodeAnswers node, MadReceiver receiver, boolean sm) {
            this.node = node;
            this.receiver = receiver;
            this.sm = sm;
        }

        @Override
        public String nodeName() {
            return node.name();
        }

        @Override
        public int portNumber() {
            return node.port();
        }

        @Override
        public byte[] nodeInfo() {
            return node.nodeInfo().clone();
        }

        @Override
        public byte[] portInfo(int port) {
            return node.portInfos().getOrDefault(port, node.portInfos().get(0)).clone();
        }

        @Override
        public byte[] pkeys() {
            return node.pkeys().clone();
        }

        @Override
        public byte[] vendor() {
            return node.vendor().clone();
        }

        @Override
        public void setSm(boolean isSm) {
            sm = isSm;
        }

        @Override
        public void send(int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {
            sent.add(new Sent(node.name(), dlid, slid, dqp, sqp, mad, length));
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
