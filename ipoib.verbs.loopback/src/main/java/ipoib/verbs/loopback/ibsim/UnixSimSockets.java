package ipoib.verbs.loopback.ibsim;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;

/**
 * ibsim's local mode: abstract AF_UNIX datagram sockets named {@code BASE:ctl} and
 * {@code BASE:out<slot>}; a client binds {@code BASE:ctl<pid>} and {@code BASE:in<pid>}
 * ({@code sim_init}, umad2sim/sim_client.c). {@code BASE} is {@code IBSIM_SOCKNAME}, "sim"
 * by default. Abstract names vanish with the last descriptor: nothing is left in the file system.
 */
final class UnixSimSockets implements SimSockets {
    /** struct pollfd: int fd, short events, short revents. */
    private static final int POLLFD = 8;

    private final String base;
    private final Arena arena = Arena.ofShared();
    private final int control;
    private final int[] data = new int[SimWire.MAX_CLIENTS];
    private final int wakeup;
    private final MemorySegment pollFds;
    private final MemorySegment wakeupWord;
    private final MemorySegment signalWord;
    private final MemorySegment from;
    private final MemorySegment fromLength;
    private volatile boolean closed;

    private UnixSimSockets(String base) throws IOException {
        this.base = base;
        java.util.Arrays.fill(data, -1);
        int ctl = -1;
        int event = -1;
        try {
            ctl = UnixDatagrams.bound(UnixDatagrams.abstractName(base + ":ctl", arena));
            for (int i = 0; i < data.length; i++) {
                data[i] = UnixDatagrams.bound(UnixDatagrams.abstractName(base + ":out" + i, arena));
            }
            event = UnixDatagrams.eventfd();
        } catch (IOException | RuntimeException e) {
            UnixDatagrams.close(ctl);
            for (int fd : data) {
                UnixDatagrams.close(fd);
            }
            arena.close();
            throw e;
        }
        this.control = ctl;
        this.wakeup = event;
        this.pollFds = arena.allocate((long) POLLFD * (data.length + 2), 4);
        this.wakeupWord = arena.allocate(8, 8);
        this.signalWord = arena.allocate(8, 8);
        this.from = arena.allocate(UnixDatagrams.SOCKADDR_UN, 2);
        this.fromLength = arena.allocate(4, 4);
        setPollFd(0, control);
        for (int i = 0; i < data.length; i++) {
            setPollFd(i + 1, data[i]);
        }
        setPollFd(data.length + 1, wakeup);
    }

    /** Binds {@code BASE:ctl} and {@code BASE:out0..9}, or fails naming the name in use. */
    static UnixSimSockets open(String base) throws IOException {
        if (base == null || base.isEmpty() || base.length() > 90) {
            throw new IllegalArgumentException("simulator socket name '" + base + "': allowed 1..90 characters");
        }
        return new UnixSimSockets(base);
    }

    private void setPollFd(int index, int fd) {
        pollFds.set(ValueLayout.JAVA_INT, (long) index * POLLFD, fd);
        pollFds.set(ValueLayout.JAVA_SHORT, (long) index * POLLFD + 4, UnixDatagrams.POLLIN);
    }

    @Override
    public int await(int timeoutMillis) throws IOException {
        int count = data.length + 2;
        for (int i = 0; i < count; i++) {
            pollFds.set(ValueLayout.JAVA_SHORT, (long) i * POLLFD + 6, (short) 0);
        }
        int r = UnixDatagrams.poll(pollFds, count, timeoutMillis);
        if (r < 0) {
            if (-r == UnixDatagrams.EINTR) {
                return 0;
            }
            throw new IOException("poll: " + UnixDatagrams.strerror(-r));
        }
        int ready = 0;
        for (int i = 0; i <= data.length; i++) {
            if (pollFds.get(ValueLayout.JAVA_SHORT, (long) i * POLLFD + 6) != 0) {
                ready |= 1 << i;
            }
        }
        if (pollFds.get(ValueLayout.JAVA_SHORT, (long) (data.length + 1) * POLLFD + 6) != 0) {
            UnixDatagrams.drain(wakeup, wakeupWord);
        }
        return ready;
    }

    @Override
    public synchronized void wakeup() {
        if (!closed) {
            UnixDatagrams.signal(wakeup, signalWord);
        }
    }

    @Override
    public boolean clientIdIsPid() {
        return true;
    }

    @Override
    public Peer receiveControl(ByteBuffer buffer) throws IOException {
        buffer.clear();
        long n = UnixDatagrams.recvfrom(control, MemorySegment.ofBuffer(buffer), from, fromLength);
        if (n < 0) {
            if (-n == UnixDatagrams.EAGAIN) {
                return null;
            }
            throw new IOException("recvfrom " + base + ":ctl: " + UnixDatagrams.strerror((int) -n));
        }
        buffer.limit((int) n);
        int length = fromLength.get(ValueLayout.JAVA_INT, 0);
        byte[] address = new byte[length];
        MemorySegment.copy(from, ValueLayout.JAVA_BYTE, 0, address, 0, length);
        return new Peer(UnixDatagrams.nameOf(from, length), address);
    }

    @Override
    public void replyControl(ByteBuffer buffer, Peer to) throws IOException {
        byte[] address = (byte[]) to.address();
        try (Arena call = Arena.ofConfined()) {
            MemorySegment a = call.allocate(Math.max(address.length, 1), 2);
            MemorySegment.copy(address, 0, a, ValueLayout.JAVA_BYTE, 0, address.length);
            long n = UnixDatagrams.sendto(control, MemorySegment.ofBuffer(buffer), buffer.remaining(), a, address.length);
            if (n < 0) {
                throw new IOException("cannot answer " + to.name() + ": " + UnixDatagrams.strerror((int) -n));
            }
        }
    }

    @Override
    public void connectClient(int slot, Peer controlPeer, int id) throws IOException {
        // sim_ctl_new_client (ibsim/ibsim.c): the client's input socket is BASE:in<pid>.
        try (Arena call = Arena.ofConfined()) {
            UnixDatagrams.Name in = UnixDatagrams.abstractName(base + ":in" + Integer.toUnsignedString(id), call);
            int r = UnixDatagrams.connect(data[slot], in.address(), in.length());
            if (r < 0) {
                throw new IOException("cannot connect to the client's socket '" + in.text() + "': "
                        + UnixDatagrams.strerror(-r));
            }
        }
    }

    @Override
    public int receive(int slot, ByteBuffer buffer) throws IOException {
        buffer.clear();
        long n = UnixDatagrams.recvfrom(data[slot], MemorySegment.ofBuffer(buffer), from, fromLength);
        if (n < 0) {
            if (-n == UnixDatagrams.EAGAIN) {
                return -1;
            }
            if (-n == UnixDatagrams.ECONNREFUSED || -n == UnixDatagrams.ENOTCONN) {
                return GONE;
            }
            throw new IOException("recv " + base + ":out" + slot + ": " + UnixDatagrams.strerror((int) -n));
        }
        buffer.limit((int) n);
        return (int) n;
    }

    @Override
    public boolean send(int slot, ByteBuffer buffer) throws IOException {
        long n = UnixDatagrams.sendto(data[slot], MemorySegment.ofBuffer(buffer), buffer.remaining(), MemorySegment.NULL, 0);
        if (n < 0) {
            int e = (int) -n;
            if (e == UnixDatagrams.ECONNREFUSED || e == UnixDatagrams.ENOTCONN) {
                return false;
            }
            throw new IOException(UnixDatagrams.strerror(e)); // EAGAIN: the client's queue is full
        }
        return true;
    }

    @Override
    public String describe() {
        return "abstract AF_UNIX @" + base + ":ctl (data @" + base + ":out0.." + (data.length - 1) + ")";
    }

    @Override
    public String clientEnvironment() {
        return "IBSIM_SOCKNAME=" + base;
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        UnixDatagrams.close(control);
        for (int fd : data) {
            UnixDatagrams.close(fd);
        }
        UnixDatagrams.close(wakeup);
        arena.close();
    }
}
