package ipoib.verbs.loopback.ibsim;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * A client of ibsim's protocol as umad2sim's {@code sim_client.c} is one, for tests: it binds
 * {@code BASE:ctl<id>} and {@code BASE:in<id>}, sends {@code struct sim_ctl} datagrams to
 * {@code BASE:ctl} and after CONNECT exchanges {@code struct sim_request} datagrams with
 * {@code BASE:out<client>}. It speaks to Debian's ibsim and to the server alike.
 */
final class SimTestClient implements AutoCloseable {
    private static final int TIMEOUT_MILLIS = 5000;

    private final String base;
    private final int id;
    private final Arena arena = Arena.ofShared();
    private final int ctlFd;
    private int inFd;
    private int clientId = -1;
    private final MemorySegment from = arena.allocate(UnixDatagrams.SOCKADDR_UN, 2);
    private final MemorySegment fromLength = arena.allocate(4, 4);
    private final MemorySegment pollFd = arena.allocate(8, 4);

    SimTestClient(String base, int id) throws IOException {
        this.base = base;
        this.id = id;
        ctlFd = UnixDatagrams.bound(UnixDatagrams.abstractName(base + ":ctl" + id, arena));
        inFd = UnixDatagrams.bound(UnixDatagrams.abstractName(base + ":in" + id, arena));
        UnixDatagrams.Name server = UnixDatagrams.abstractName(base + ":ctl", arena);
        int r = UnixDatagrams.connect(ctlFd, server.address(), server.length());
        if (r < 0) {
            close();
            throw new IOException("no server at @" + base + ":ctl: " + UnixDatagrams.strerror(-r));
        }
    }

    int clientId() {
        return clientId;
    }

    /** The answer to a control datagram (80 octets), or null when the server sent none within the timeout. */
    ByteBuffer control(int type, int clientid, byte[] data) throws IOException {
        ByteBuffer ctl = ByteBuffer.allocateDirect(SimWire.CTL_SIZE).order(ByteOrder.nativeOrder());
        ctl.putInt(SimWire.CTL_MAGIC, SimWire.MAGIC).putInt(SimWire.CTL_CLIENT, clientid).putInt(SimWire.CTL_TYPE, type)
                .putInt(SimWire.CTL_LEN, data.length);
        ctl.put(SimWire.CTL_DATA_OFFSET, data);
        return exchange(ctl, SimWire.CTL_SIZE);
    }

    /** Sends raw octets to the control socket without waiting for an answer. */
    void sendControl(ByteBuffer datagram, int length) throws IOException {
        long n = UnixDatagrams.sendto(ctlFd, MemorySegment.ofBuffer(datagram), length, MemorySegment.NULL, 0);
        if (n < 0) {
            throw new IOException("send: " + UnixDatagrams.strerror((int) -n));
        }
    }

    /** Sends raw octets to the control socket; returns the answer, or null. */
    ByteBuffer exchange(ByteBuffer datagram, int length) throws IOException {
        long n = UnixDatagrams.sendto(ctlFd, MemorySegment.ofBuffer(datagram), length, MemorySegment.NULL, 0);
        if (n < 0) {
            throw new IOException("send: " + UnixDatagrams.strerror((int) -n));
        }
        ByteBuffer answer = ByteBuffer.allocateDirect(SimWire.CTL_SIZE + 16).order(ByteOrder.nativeOrder());
        int got = receive(ctlFd, answer);
        return got < 0 ? null : answer.limit(got);
    }

    /** SIM_CTL_CONNECT as {@code sim_connect}; the answer's type (SIM_CTL_ERROR when refused). */
    int connect(String nodeId, boolean issm) throws IOException {
        byte[] info = new byte[44];
        ByteBuffer b = ByteBuffer.wrap(info).order(ByteOrder.nativeOrder());
        b.putInt(0, id).putInt(4, 0).putInt(8, issm ? 1 : 0);
        byte[] node = nodeId.getBytes(StandardCharsets.ISO_8859_1);
        System.arraycopy(node, 0, info, 12, Math.min(node.length, 31));
        ByteBuffer answer = control(SimWire.CONNECT, 0, info);
        if (answer == null) {
            throw new IOException("no answer to CONNECT");
        }
        int type = answer.getInt(SimWire.CTL_TYPE);
        if (type != SimWire.ERROR) {
            clientId = answer.getInt(SimWire.INFO_ID);
            UnixDatagrams.Name out = UnixDatagrams.abstractName(base + ":out" + clientId, arena);
            if (UnixDatagrams.connect(inFd, out.address(), out.length()) < 0) {
                throw new IOException("cannot connect to @" + base + ":out" + clientId);
            }
        }
        return type;
    }

    /** The node name of a CONNECT answer. */
    static String nodeOf(ByteBuffer answer) {
        return SimWire.nodeId(answer);
    }

    /** The 64 octets of data of a control's answer. */
    byte[] get(int type, byte... request) throws IOException {
        ByteBuffer answer = control(type, clientId, request);
        if (answer == null || answer.getInt(SimWire.CTL_TYPE) != type) {
            throw new IOException("control " + type + " failed: " + (answer == null ? "no answer" : "SIM_CTL_ERROR"));
        }
        byte[] data = new byte[SimWire.CTL_DATA];
        answer.get(SimWire.CTL_DATA_OFFSET, data);
        return data;
    }

    void send(ByteBuffer request, int length) throws IOException {
        long n = UnixDatagrams.sendto(inFd, MemorySegment.ofBuffer(request), length, MemorySegment.NULL, 0);
        if (n < 0) {
            throw new IOException("send: " + UnixDatagrams.strerror((int) -n));
        }
    }

    /** The next datagram from the server's data socket, or null within the timeout. */
    ByteBuffer receive() throws IOException {
        ByteBuffer b = ByteBuffer.allocateDirect(512).order(ByteOrder.BIG_ENDIAN);
        int n = receive(inFd, b);
        return n < 0 ? null : b.limit(n);
    }

    private int receive(int fd, ByteBuffer into) throws IOException {
        pollFd.set(ValueLayout.JAVA_INT, 0, fd);
        pollFd.set(ValueLayout.JAVA_SHORT, 4, UnixDatagrams.POLLIN);
        pollFd.set(ValueLayout.JAVA_SHORT, 6, (short) 0);
        if (UnixDatagrams.poll(pollFd, 1, TIMEOUT_MILLIS) <= 0) {
            return -1;
        }
        long n = UnixDatagrams.recvfrom(fd, MemorySegment.ofBuffer(into), from, fromLength);
        if (n < 0) {
            throw new IOException("recv: " + UnixDatagrams.strerror((int) -n));
        }
        return (int) n;
    }

    /** Closes the input socket only: the client's process is gone as far as the server can tell. */
    void closeInput() {
        UnixDatagrams.close(inFd);
        inFd = -1;
    }

    @Override
    public void close() {
        UnixDatagrams.close(ctlFd);
        UnixDatagrams.close(inFd);
        arena.close();
    }
}
