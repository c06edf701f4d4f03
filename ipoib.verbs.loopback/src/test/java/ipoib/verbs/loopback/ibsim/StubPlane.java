package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.agent.AttachRefusedException;
import ipoib.verbs.loopback.agent.Attachment;
import ipoib.verbs.loopback.agent.MadReceiver;
import ipoib.verbs.loopback.agent.ManagementPlane;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * A management plane that answers the controls from given NodeInfo and PortInfo octets (the
 * derived values read off them at their IBA offsets) and records the MADs it is sent.
 */
final class StubPlane implements ManagementPlane {
    /** One node's answers. */
    record NodeAnswers(String name, int port, byte[] nodeInfo, Map<Integer, byte[]> portInfos, byte[] pkeys) {}

    /** A MAD a client sent. */
    record Sent(String node, int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {}

    private final Map<String, NodeAnswers> nodes;
    private final String defaultNode;
    final BlockingQueue<Sent> sent = new LinkedBlockingQueue<>();
    /** When set, the next MAD sent holds the server's thread in the plane until it is counted down. */
    volatile java.util.concurrent.CountDownLatch hold;
    /** Counted down when a MAD is held. */
    final java.util.concurrent.CountDownLatch holding = new java.util.concurrent.CountDownLatch(1);
    final List<StubAttachment> attachments = new CopyOnWriteArrayList<>();

    StubPlane(String defaultNode, Map<String, NodeAnswers> nodes) {
        this.defaultNode = defaultNode;
        this.nodes = nodes;
    }

    @Override
    public Attachment attach(String nodeId, boolean isSm, MadReceiver receiver) {
        NodeAnswers n = nodes.get(nodeId.isEmpty() ? defaultNode : nodeId);
        if (n == null) {
            throw new AttachRefusedException("no node \"" + nodeId + "\" in the topology");
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
        public int clientId() {
            return attachments.indexOf(this);
        }

        private ByteBuffer nodeInfoView() {
            return ByteBuffer.wrap(node.nodeInfo());
        }

        private ByteBuffer portInfoView() {
            return ByteBuffer.wrap(node.portInfos().get(0));
        }

        /** PortInfo.LID, octets 16-17 (IBA 14.2.5.6). */
        @Override
        public int lid() {
            return portInfoView().getShort(16) & 0xffff;
        }

        /** PortInfo.PortState, the low nibble of octet 32. */
        @Override
        public int portState() {
            return portInfoView().get(32) & 0x0f;
        }

        /** NodeInfo.NodeGUID, octets 12-19 (IBA 14.2.5.3). */
        @Override
        public long nodeGuid() {
            return nodeInfoView().getLong(12);
        }

        /** PortInfo.GidPrefix, octets 8-15. */
        @Override
        public long gidPrefix() {
            return portInfoView().getLong(8);
        }

        /** NodeInfo.VendorID, octets 37-39. */
        @Override
        public int vendorId() {
            return nodeInfoView().getInt(36) & 0xffffff;
        }

        /** NodeInfo.DeviceID, octets 30-31. */
        @Override
        public int vendorPartId() {
            return nodeInfoView().getShort(30) & 0xffff;
        }

        /** NodeInfo.Revision, octets 32-35. */
        @Override
        public int hardwareVersion() {
            return nodeInfoView().getInt(32);
        }

        @Override
        public long firmwareVersion() {
            return 1;
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
        public void setSm(boolean isSm) {
            sm = isSm;
        }

        @Override
        public void send(int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {
            sent.add(new Sent(node.name(), dlid, slid, dqp, sqp, mad.clone(), length));
            java.util.concurrent.CountDownLatch h = hold;
            if (h != null) {
                hold = null;
                holding.countDown();
                try {
                    h.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
