package ipoib.verbs.loopback.agent;

import ipoib.codec.smp.PortInfo;
import ipoib.verbs.loopback.subnet.Node;
import ipoib.verbs.loopback.subnet.Port;
import java.lang.foreign.MemorySegment;

/** One attached client of the {@link SubnetManagementPlane} (ibsim/ibsim.c {@code Client}). */
final class Client implements Attachment {
    private final SubnetManagementPlane plane;
    private final int id;
    final Port port;
    final MadReceiver receiver;
    volatile boolean sm;
    volatile boolean closed;

    Client(SubnetManagementPlane plane, int id, Port port, boolean sm, MadReceiver receiver) {
        this.plane = plane;
        this.id = id;
        this.port = port;
        this.sm = sm;
        this.receiver = receiver;
    }

    @Override
    public int clientId() {
        return id;
    }

    @Override
    public String nodeName() {
        return port.node().name();
    }

    @Override
    public int portNumber() {
        return port.number();
    }

    @Override
    public int lid() {
        return port.lid();
    }

    @Override
    public int portState() {
        return port.state().code();
    }

    @Override
    public long nodeGuid() {
        return port.node().nodeGuid();
    }

    @Override
    public long gidPrefix() {
        return port.gidPrefix();
    }

    @Override
    public byte[] nodeInfo() {
        byte[] b = new byte[64];
        plane.locked(() -> NodeAttributes.nodeInfo(port).encode(MemorySegment.ofArray(b), 0));
        return b;
    }

    @Override
    public byte[] portInfo(int number) {
        Node n = port.node();
        Port p = number == 0 || number > n.portCount() ? port : n.port(number);
        byte[] b = new byte[64];
        plane.locked(() -> {
            PortInfo info = PortInfoAttribute.portInfo(p, p);
            info.encode(MemorySegment.ofArray(b), 0);
        });
        return b;
    }

    @Override
    public byte[] pkeys() {
        byte[] b = new byte[64];
        plane.locked(() -> {
            int n = Math.min(32, port.pkeyEntries());
            for (int i = 0; i < n; i++) {
                b[2 * i] = (byte) (port.pkey(i) >>> 8);
                b[2 * i + 1] = (byte) port.pkey(i);
            }
        });
        return b;
    }

    @Override
    public int vendorId() {
        return port.node().vendorId();
    }

    @Override
    public int vendorPartId() {
        return port.node().deviceId();
    }

    @Override
    public int hardwareVersion() {
        return port.node().revision();
    }

    @Override
    public long firmwareVersion() {
        return 1;
    }

    @Override
    public void setSm(boolean isSm) {
        plane.setSm(this, isSm);
    }

    @Override
    public void send(int dlid, int slid, int dqp, int sqp, byte[] mad, int length) {
        plane.send(this, dlid, slid, dqp, sqp, mad, length);
    }

    @Override
    public void close() {
        plane.detach(this);
    }

    @Override
    public String toString() {
        return "client " + id + " at " + port + (sm ? " (SM)" : "");
    }
}
