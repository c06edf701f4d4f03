package ipoib.verbs.fabric.internal;

import ipoib.api.Gid;
import ipoib.api.Lid;
import ipoib.api.QKey;
import ipoib.api.Qpn;
import ipoib.api.sa.MadTransport;
import ipoib.api.verbs.VerbsException;
import ipoib.runtime.Threads;
import ipoib.verbs.fabric.ffi.Consts;
import ipoib.verbs.fabric.ffi.Native;
import ipoib.verbs.fabric.ffi.Structs;
import ipoib.verbs.fabric.ffi.Umad;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.function.Consumer;

/**
 * Subnet administration MADs over libibumad on one port: an agent of management class 0x03
 * (SA, class version 2) that also accepts unsolicited Reports (method 0x06, the SM's trap
 * notices), sends to the SM's LID on QP1 with the GSI Q_Key, and receives on a daemon thread.
 *
 * <p>The agent registers with RMPP version 0: the kernel does no RMPP for it and hands each
 * RMPP segment of an answer to the receiver (ib_mad.c ib_mad_complete_recv, "user rmpp is in
 * effect"); the SA client reassembles them and sends its ACKs through {@link #send}. Under
 * umad2sim there is no kernel: OpenSM's GetTable answer comes unsegmented and cut to its first
 * 256 octets (see the SA client). A request waits in the kernel for its answer, which the
 * kernel hands on only to a waiting send ({@link #expectAnswersWithin}). Answers shorter than a MAD (ibsim sends successful answers
 * short) are padded with zeros to {@value MadTransport#MAD_LENGTH} octets before the receiver
 * sees them. The kernel (and umad2sim) rewrites the upper 32 bits of
 * the transaction ID of every sent MAD with the agent's ID: the client must match answers on
 * the lower 32 bits.
 */
public final class UmadTransport implements MadTransport, AutoCloseable {
    /** Subnet administration class and version (IBA 15.2.1). */
    public static final int SA_CLASS = 0x03;
    public static final int SA_CLASS_VERSION = 2;
    /** Report, the method of trap notices the SM forwards to subscribers (IBA 13.4.5). */
    public static final int METHOD_REPORT = 0x06;
    /** umad_recv timeout: how long close waits for the receive thread at most. */
    private static final int RECEIVE_SLICE_MILLIS = 200;
    private static final int UMAD_PORT_ACTIVE = 4;
    private static final ValueLayout.OfLong BE64 = ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    /**
     * What libibumad says about the port.
     *
     * @param caName the CA's name ({@code mlx5_0}, {@code ibsim0})
     * @param port the port number
     * @param lid the port's LID
     * @param smLid the SM's LID, 0 when no SM has configured the port
     * @param smServiceLevel the SL towards the SM
     * @param active whether the port is ACTIVE
     * @param portGid subnet prefix + port GUID
     */
    public record PortInfo(String caName, int port, Lid lid, Lid smLid, int smServiceLevel, boolean active,
                           Gid portGid) {}

    private final Umad umad;
    private final FabricLog log;
    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final int agent;
    private final long umadSize;
    private final MemorySegment sendBuf;
    private final MemorySegment recvBuf;
    private final MemorySegment recvLength;
    private final Object sendLock = new Object();
    private final Thread receiveThread;
    private volatile PortInfo info;
    private volatile boolean stale;
    private volatile Consumer<ByteBuffer> receiver;
    private volatile boolean closed;
    private volatile int responseWaitMillis;

    private UmadTransport(Umad umad, FabricLog log, PortInfo info, int fd, int agent, long umadSize) {
        this.umad = umad;
        this.log = log;
        this.info = info;
        this.fd = fd;
        this.agent = agent;
        this.umadSize = umadSize;
        this.sendBuf = arena.allocate(umadSize + MAD_LENGTH, 8);
        this.recvBuf = arena.allocate(umadSize + MAD_LENGTH, 8);
        this.recvLength = arena.allocate(ValueLayout.JAVA_INT);
        this.receiveThread = Threads.create("ipoib-fabric-umad-" + info.caName() + "/" + info.port(), true,
                this::receiveLoop);
    }

    /**
     * Opens the port's umad device and registers the SA agent.
     *
     * @param caName the CA ({@code mlx5_0}); null for the first CA libibumad finds
     * @param port the port number; 0 for the first active port
     * @throws VerbsException naming the failing call, its errno, and what to check
     */
    public static UmadTransport open(Umad umad, String caName, int port, FabricLog log) {
        if (umad == null) {
            throw new VerbsException("MAD transport: libibumad is not available");
        }
        try {
            int rc = (int) umad.init.invokeExact();
            if (rc < 0) {
                throw new VerbsException("umad_init failed: " + rc);
            }
            PortInfo info = query(umad, caName, port);
            int fd;
            int agent;
            try (Arena a = Arena.ofConfined()) {
                fd = (int) umad.openPort.invokeExact(a.allocateFrom(info.caName()), info.port());
                if (fd < 0) {
                    int done = (int) umad.done.invokeExact();
                    throw new VerbsException("umad_open_port(" + info.caName() + ", " + info.port() + ") failed: "
                            + Native.describeErrno(-fd) + " (check the permissions of /dev/infiniband/umad*)",
                            -fd, null);
                }
                MemorySegment mask = a.allocate(16, 8);
                mask.set(ValueLayout.JAVA_LONG, 0, 1L << METHOD_REPORT);
                agent = (int) umad.register.invokeExact(fd, SA_CLASS, SA_CLASS_VERSION, (byte) 0, mask);
                if (agent < 0) {
                    // One agent per port may take unsolicited Reports of a class (ib_mad refuses a
                    // second): answers still work without them, group traps do not arrive.
                    log.warn("umad_register(SA class 0x03 with Report) on " + info.caName() + "/" + info.port()
                            + " failed: " + Native.describeErrno(-agent) + "; registering without Reports: "
                            + "group traps will not arrive on this port", null);
                    mask.fill((byte) 0);
                    agent = (int) umad.register.invokeExact(fd, SA_CLASS, SA_CLASS_VERSION, (byte) 0, mask);
                }
                if (agent < 0) {
                    int ignored = (int) umad.closePort.invokeExact(fd);
                    int done = (int) umad.done.invokeExact();
                    throw new VerbsException("umad_register(SA class 0x03, version 2) on " + info.caName() + "/"
                            + info.port() + " failed: " + Native.describeErrno(-agent), -agent, null);
                }
            }
            long size = (long) umad.size.invokeExact();
            UmadTransport t = new UmadTransport(umad, log, info, fd, agent, size);
            t.receiveThread.start();
            return t;
        } catch (VerbsException e) {
            throw e;
        } catch (Throwable t) {
            throw new VerbsException("opening the MAD transport failed: " + t, 0, t);
        }
    }

    private static PortInfo query(Umad umad, String caName, int port) throws Throwable {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment p = a.allocate(Structs.UMAD_PORT);
            MemorySegment name = caName == null ? MemorySegment.NULL : a.allocateFrom(caName);
            int rc = (int) umad.getPort.invokeExact(name, port, p);
            if (rc < 0) {
                throw new VerbsException("umad_get_port(" + (caName == null ? "first CA" : caName) + ", " + port
                        + ") failed: " + Native.describeErrno(-rc), -rc, null);
            }
            try {
                var l = Structs.UMAD_PORT;
                String ca = p.asSlice(Structs.offset(l, "ca_name"), Structs.UMAD_CA_NAME_LEN).getString(0);
                long prefix = p.get(BE64, Structs.offset(l, "gid_prefix"));
                long guid = p.get(BE64, Structs.offset(l, "port_guid"));
                return new PortInfo(ca, p.get(ValueLayout.JAVA_INT, Structs.offset(l, "portnum")),
                        new Lid(p.get(ValueLayout.JAVA_INT, Structs.offset(l, "base_lid")) & 0xFFFF),
                        new Lid(p.get(ValueLayout.JAVA_INT, Structs.offset(l, "sm_lid")) & 0xFFFF),
                        p.get(ValueLayout.JAVA_INT, Structs.offset(l, "sm_sl")) & 0xF,
                        p.get(ValueLayout.JAVA_INT, Structs.offset(l, "state")) == UMAD_PORT_ACTIVE,
                        new Gid(prefix, guid));
            } finally {
                int ignored = (int) umad.releasePort.invokeExact(p);
            }
        }
    }

    /** The port as last read; re-read after a port event or when no SM was known. */
    public PortInfo portInfo() {
        PortInfo current = info;
        if (stale || !current.smLid().isUnicast()) {
            try {
                current = query(umad, current.caName(), current.port());
                info = current;
                stale = false;
            } catch (VerbsException e) {
                throw e;
            } catch (Throwable t) {
                throw new VerbsException("umad_get_port failed", 0, t);
            }
        }
        return current;
    }

    /** A port event (LID or SM change, re-register): the SM LID is read again before the next send. */
    void portChanged() {
        stale = true;
    }

    @Override
    public void send(ByteBuffer mad) {
        if (mad == null || mad.remaining() != MAD_LENGTH) {
            throw new IllegalArgumentException("a MAD has exactly " + MAD_LENGTH + " octets, got "
                    + (mad == null ? "null" : mad.remaining()));
        }
        synchronized (sendLock) {
            if (closed) {
                throw new VerbsException("MAD transport of " + info.caName() + "/" + info.port() + " is closed");
            }
            PortInfo port = portInfo();
            if (!port.smLid().isUnicast()) {
                throw new VerbsException("MAD transport: no subnet manager has configured " + port.caName() + "/"
                        + port.port() + " (SM LID " + port.smLid() + ")");
            }
            try {
                sendBuf.asSlice(0, umadSize).fill((byte) 0);
                MemorySegment.copy(MemorySegment.ofBuffer(mad), 0, sendBuf, umadSize, MAD_LENGTH);
                int rc = (int) umad.setAddr.invokeExact(sendBuf, port.smLid().value(), Qpn.GSI.value(),
                        port.smServiceLevel(), QKey.GSI.value());
                if (rc < 0) {
                    throw new VerbsException("umad_set_addr failed: " + rc);
                }
                // Retries 0: the SA client times out and retries itself. A request waits in the
                // kernel for its response, which the kernel hands on only then (see below).
                int wait = kernelResponseWait(mad, responseWaitMillis);
                rc = (int) umad.send.invokeExact(fd, agent, sendBuf, MAD_LENGTH, wait, 0);
                if (rc < 0) {
                    throw new VerbsException("umad_send to SM LID " + port.smLid() + " failed: "
                            + Native.describeErrno(-rc), -rc, null);
                }
            } catch (VerbsException e) {
                throw e;
            } catch (Throwable t) {
                throw new VerbsException("umad_send failed", 0, t);
            }
        }
    }

    /**
     * How long the kernel keeps a sent MAD waiting for its response: {@code requestWait} for a
     * request, 0 for a response (a ReportResp) or an RMPP ACK, STOP or ABORT, which get none.
     * The kernel passes a response to the agent only when it matches a send still waiting for one
     * (ib_mad.c ib_mad_complete_recv and ib_find_send_mad, which needs {@code wr->timeout}); a
     * response to a send of timeout 0 is dropped unless it is an RMPP segment ("user rmpp is in
     * effect"). umad2sim ignores the timeout.
     */
    static int kernelResponseWait(ByteBuffer mad, int requestWait) {
        int method = mad.get(mad.position() + 3) & 0xFF;
        boolean rmppActive = (mad.get(mad.position() + 26) & 0x1) != 0;
        return (method & 0x80) == 0 && !rmppActive ? requestWait : 0;
    }

    /**
     * The SA client's wait per attempt: a request then waits in the kernel for its response for
     * nine tenths of it. The wait must end before the client sends the request again with the
     * same TID, which the kernel refuses (EINVAL) while the first still waits (user_mad.c
     * is_duplicate); an unanswered request comes back with status ETIMEDOUT, which is ignored.
     * Until this is called requests wait for nothing (timeout 0), as before.
     *
     * @param clientTimeoutMillis the SA client's timeout per attempt, 1..60000
     */
    public void expectAnswersWithin(long clientTimeoutMillis) {
        if (clientTimeoutMillis < 1 || clientTimeoutMillis > 60_000) {
            throw new IllegalArgumentException("invalid SA timeout " + clientTimeoutMillis + " ms: allowed 1..60000");
        }
        responseWaitMillis = (int) Math.max(1, clientTimeoutMillis * 9 / 10);
    }

    @Override
    public void setReceiver(Consumer<ByteBuffer> receiver) {
        this.receiver = receiver;
    }

    private void receiveLoop() {
        long statusOffset = Structs.offset(Structs.IB_USER_MAD, "status");
        int failures = 0;
        while (!closed) {
            int rc;
            try {
                recvLength.set(ValueLayout.JAVA_INT, 0, MAD_LENGTH);
                rc = (int) umad.recv.invokeExact(fd, recvBuf, recvLength, RECEIVE_SLICE_MILLIS);
            } catch (Throwable t) {
                log.error("umad_recv on " + info.caName() + "/" + info.port() + " failed; no more MADs", t);
                return;
            }
            if (closed) {
                return;
            }
            if (rc < 0) {
                if (rc == -Consts.ETIMEDOUT || rc == -Consts.EAGAIN || rc == -Consts.EINTR) {
                    continue;
                }
                if (++failures >= 100) {
                    log.error("umad_recv on " + info.caName() + "/" + info.port() + " keeps failing ("
                            + Native.describeErrno(-rc) + "); no more MADs", null);
                    return;
                }
                log.warn("umad_recv on " + info.caName() + "/" + info.port() + " failed: "
                        + Native.describeErrno(-rc), null);
                continue;
            }
            failures = 0;
            int status = recvBuf.get(ValueLayout.JAVA_INT, statusOffset);
            if (status == Consts.ETIMEDOUT) {
                continue; // a request's wait in the kernel ended unanswered: the client retried already
            }
            if (status != 0) {
                // A send the kernel could not complete (e.g. no route): the client will time out.
                log.warn("umad: a MAD on " + info.caName() + "/" + info.port() + " came back with status "
                        + Native.describeErrno(status), null);
                continue;
            }
            int length = Math.min(recvLength.get(ValueLayout.JAVA_INT, 0), MAD_LENGTH);
            MemorySegment data = recvBuf.asSlice(umadSize, MAD_LENGTH);
            if (length < 2 || data.get(ValueLayout.JAVA_BYTE, 1) != SA_CLASS) {
                continue; // not subnet administration (the agent only registered class 0x03)
            }
            if (length < MAD_LENGTH) {
                data.asSlice(Math.max(length, 0)).fill((byte) 0);
            }
            Consumer<ByteBuffer> r = receiver;
            if (r != null) {
                try {
                    r.accept(data.asByteBuffer().asReadOnlyBuffer());
                } catch (RuntimeException e) {
                    log.warn("MAD receiver failed", e);
                }
            }
        }
    }

    /** Stops the receive thread, unregisters the agent, closes the port. Never throws. */
    @Override
    public void close() {
        synchronized (sendLock) {
            if (closed) {
                return;
            }
            closed = true;
        }
        try {
            receiveThread.join(RECEIVE_SLICE_MILLIS * 10L);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (receiveThread.isAlive()) {
            log.warn("umad receive thread of " + info.caName() + "/" + info.port()
                    + " did not stop; leaving the port open", null);
            return;
        }
        try {
            int rc = (int) umad.unregister.invokeExact(fd, agent);
            rc = (int) umad.closePort.invokeExact(fd);
            rc = (int) umad.done.invokeExact();
        } catch (Throwable t) {
            log.warn("closing the umad port failed", t);
        }
        arena.close();
    }
}
