package ipoib.verbs.loopback.ibsim;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.PortUnreachableException;
import java.net.StandardProtocolFamily;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;

/**
 * ibsim's remote mode ({@code ibsim -r -l PORT}; clients set {@code IBSIM_SERVER_NAME} and
 * {@code IBSIM_SERVER_PORT}): the control socket on {@code port} and slot {@code i}'s data
 * socket on {@code port + i + 1}, bound to 127.0.0.1 only (ibsim binds every address; the
 * appliance's management plane is not offered to the network).
 */
final class UdpSimSockets implements SimSockets {
    private final int port;
    private final Selector selector;
    private final DatagramChannel control;
    private final DatagramChannel[] data = new DatagramChannel[SimWire.MAX_CLIENTS];

    private UdpSimSockets(int port, Selector selector, DatagramChannel control) {
        this.port = port;
        this.selector = selector;
        this.control = control;
    }

    /** Binds the control socket and the ten data sockets, or fails naming the port in use. */
    static UdpSimSockets open(int port) throws IOException {
        if (port < 1 || port + SimWire.MAX_CLIENTS > 65535) {
            throw new IllegalArgumentException("simulator port " + port + ": allowed 1.." + (65535 - SimWire.MAX_CLIENTS)
                    + " (the server also takes the next " + SimWire.MAX_CLIENTS + " ports)");
        }
        Selector selector = Selector.open();
        UdpSimSockets s = null;
        try {
            s = new UdpSimSockets(port, selector, bind(port));
            s.control.register(selector, SelectionKey.OP_READ, 0);
            for (int i = 0; i < SimWire.MAX_CLIENTS; i++) {
                s.data[i] = bind(port + i + 1);
                s.data[i].register(selector, SelectionKey.OP_READ, i + 1);
            }
            return s;
        } catch (IOException | RuntimeException e) {
            if (s != null) {
                s.close();
            } else {
                selector.close();
            }
            throw e;
        }
    }

    private static DatagramChannel bind(int port) throws IOException {
        DatagramChannel c = DatagramChannel.open(StandardProtocolFamily.INET);
        try {
            c.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
            c.configureBlocking(false);
            return c;
        } catch (IOException e) {
            c.close();
            throw new IOException("cannot bind UDP 127.0.0.1:" + port + ": " + e.getMessage(), e);
        }
    }

    @Override
    public int await(int timeoutMillis) throws IOException {
        selector.select(timeoutMillis);
        int ready = 0;
        for (SelectionKey k : selector.selectedKeys()) {
            ready |= 1 << (Integer) k.attachment();
        }
        selector.selectedKeys().clear();
        return ready;
    }

    @Override
    public void wakeup() {
        selector.wakeup();
    }

    @Override
    public boolean clientIdIsPid() {
        return false; // the id is the client's data port
    }

    @Override
    public Peer receiveControl(ByteBuffer buffer) throws IOException {
        buffer.clear();
        InetSocketAddress from = (InetSocketAddress) control.receive(buffer);
        if (from == null) {
            return null;
        }
        buffer.flip();
        return new Peer(from.getAddress().getHostAddress() + ":" + from.getPort(), from);
    }

    @Override
    public void replyControl(ByteBuffer buffer, Peer to) throws IOException {
        control.send(buffer, (InetSocketAddress) to.address());
    }

    @Override
    public void connectClient(int slot, Peer controlPeer, int id) throws IOException {
        DatagramChannel c = data[slot];
        if (c.isConnected()) {
            c.disconnect();
        }
        // sim_ctl_new_client: the client's data socket is at the control sender's address, port id.
        c.connect(new InetSocketAddress(((InetSocketAddress) controlPeer.address()).getAddress(), id));
    }

    @Override
    public int receive(int slot, ByteBuffer buffer) throws IOException {
        buffer.clear();
        try {
            // A connected channel receives only from its client (before CONNECT: from anyone, dropped as unexpected).
            if (data[slot].receive(buffer) == null) {
                return -1;
            }
        } catch (PortUnreachableException gone) {
            return GONE; // an earlier send found no one listening
        }
        buffer.flip();
        return buffer.limit();
    }

    @Override
    public boolean send(int slot, ByteBuffer buffer) throws IOException {
        try {
            if (data[slot].write(buffer) == 0) {
                throw new IOException("the client's socket buffer is full");
            }
            return true;
        } catch (PortUnreachableException gone) {
            return false;
        }
    }

    @Override
    public String describe() {
        return "UDP 127.0.0.1:" + port + " (data " + (port + 1) + ".." + (port + SimWire.MAX_CLIENTS) + ")";
    }

    @Override
    public String clientEnvironment() {
        return "IBSIM_SERVER_NAME=127.0.0.1 IBSIM_SERVER_PORT=" + port;
    }

    @Override
    public void close() {
        try {
            selector.close();
        } catch (IOException ignored) {
            // closing
        }
        closeQuietly(control);
        for (DatagramChannel c : data) {
            closeQuietly(c);
        }
    }

    private static void closeQuietly(DatagramChannel c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // closing
            }
        }
    }
}
