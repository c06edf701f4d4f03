package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.agent.AttachRefusedException;
import ipoib.verbs.loopback.agent.Attachment;
import ipoib.verbs.loopback.agent.ManagementPlane;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * Serves ibsim's client protocol on top of a {@link ManagementPlane}, as {@code ibsim}'s
 * {@code sim_run} loop does (ibsim/ibsim.c): the control datagrams ({@code sim_ctl}) on the
 * control socket, the MADs ({@code sim_request}) on each client's data socket, at most
 * {@value SimWire#MAX_CLIENTS} clients (IBSIM_MAX_CLIENTS). One thread reads every socket;
 * the plane delivers MADs to a client from any thread.
 *
 * <p>Unlike ibsim, a control datagram for a slot is accepted only from the address that
 * attached it, a control datagram with a bad length, magic or type is counted and dropped (the
 * parseable ones answered SIM_CTL_ERROR), and a client whose process or socket is gone is
 * detached when found (its pid checked every second on AF_UNIX, a refused datagram on both
 * transports), so its slot is free again.
 */
public final class SimulatorServer implements AutoCloseable {
    /** How often the server looks for clients whose process ended without DISCONNECT. */
    private static final int SWEEP_MILLIS = 1000;
    /** Malformed datagrams logged one by one; after that they are only counted. */
    private static final int LOGGED_MALFORMED = 10;

    private final SimSockets sockets;
    private final ManagementPlane plane;
    private final Consumer<String> info;
    private final Consumer<String> warn;
    private final SimClient[] clients = new SimClient[SimWire.MAX_CLIENTS];
    private final Thread thread;
    /**
     * Clients found gone while the plane delivered to them, with why, detached by the server's
     * thread: one entry per client however many MADs found it gone, so at most one per slot.
     */
    private final java.util.concurrent.ConcurrentHashMap<SimClient, String> gone = new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean stopping;

    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong refused = new AtomicLong();
    private final AtomicLong vanished = new AtomicLong();
    private final AtomicLong madsIn = new AtomicLong();
    private final AtomicLong madsOut = new AtomicLong();
    private final AtomicLong undeliverable = new AtomicLong();

    /** The server's counters, as the shell shows them. */
    public record Counters(long madsFromClients, long madsToClients, long malformedDropped, long clientsRefused,
                           long clientsVanished, long madsForDetachedClients) {}

    private SimulatorServer(SimSockets sockets, ManagementPlane plane, Consumer<String> info, Consumer<String> warn) {
        this.sockets = sockets;
        this.plane = plane;
        this.info = info;
        this.warn = warn;
        this.thread = Thread.ofPlatform().daemon().name("ibsim-server").unstarted(this::run);
    }

    /**
     * Serves on abstract AF_UNIX names {@code base:ctl} and {@code base:out0..9} (clients set
     * {@code IBSIM_SOCKNAME=base}).
     *
     * @throws IOException naming the socket that cannot be bound (another server has the name)
     */
    public static SimulatorServer local(String base, ManagementPlane plane, Consumer<String> info,
                                        Consumer<String> warn) throws IOException {
        return start(UnixSimSockets.open(base), plane, info, warn);
    }

    /**
     * Serves on UDP 127.0.0.1 {@code port} and the ten ports after it (clients set
     * {@code IBSIM_SERVER_NAME=127.0.0.1 IBSIM_SERVER_PORT=port}).
     *
     * @throws IOException naming the port that cannot be bound
     */
    public static SimulatorServer udp(int port, ManagementPlane plane, Consumer<String> info,
                                      Consumer<String> warn) throws IOException {
        return start(UdpSimSockets.open(port), plane, info, warn);
    }

    static SimulatorServer start(SimSockets sockets, ManagementPlane plane, Consumer<String> info,
                                 Consumer<String> warn) {
        SimulatorServer s = new SimulatorServer(sockets, plane, info, warn);
        s.thread.start();
        info.accept("ibsim protocol server on " + sockets.describe() + ": clients attach with "
                + sockets.clientEnvironment() + " and LD_PRELOAD=libumad2sim.so");
        return s;
    }

    /** Where the server listens. */
    public String describe() {
        return sockets.describe();
    }

    /** The environment a client needs, e.g. {@code IBSIM_SOCKNAME=sim}. */
    public String clientEnvironment() {
        return sockets.clientEnvironment();
    }

    /** The attached clients, one line each. */
    public synchronized List<String> clients() {
        List<String> lines = new ArrayList<>();
        for (SimClient c : clients) {
            if (c != null) {
                lines.add(c.describe());
            }
        }
        return lines;
    }

    public Counters counters() {
        return new Counters(madsIn.get(), madsOut.get(), malformed.get(), refused.get(), vanished.get(),
                undeliverable.get());
    }

    SimSockets sockets() {
        return sockets;
    }

    void warn(String line) {
        warn.accept(line);
    }

    void countDelivered() {
        madsOut.incrementAndGet();
    }

    void countUndeliverable() {
        undeliverable.incrementAndGet();
    }

    /** A MAD that could not be written to a client's socket (its buffer full): counted, the first few logged. */
    void undeliverable(SimClient client, String why) {
        if (undeliverable.incrementAndGet() <= LOGGED_MALFORMED) {
            warn.accept("simulator client " + client.slot + " (pid " + Integer.toUnsignedString(client.id)
                    + "): a MAD for it dropped: " + why);
        }
    }

    /** Detaches a client on the server's thread: the plane's delivery must not call back into the plane. */
    void vanishedLater(SimClient client, String why) {
        if (gone.putIfAbsent(client, why) == null) {
            sockets.wakeup();
        }
    }

    private void run() {
        ByteBuffer ctl = SimWire.controlBuffer();
        ByteBuffer request = SimWire.requestBuffer();
        byte[] mad = new byte[SimWire.MAD_SIZE];
        long nextSweep = System.nanoTime();
        while (!stopping) {
            try {
                int ready = sockets.await(SWEEP_MILLIS);
                for (SimClient client : gone.keySet()) {
                    vanished(client, gone.remove(client));
                }
                // The MADs first: a client's last MAD (a tool's final RMPP ACK) is sent before its
                // DISCONNECT, and a client's first MAD can only follow the answer to its CONNECT.
                for (int slot = 0; slot < SimWire.MAX_CLIENTS; slot++) {
                    if ((ready & (1 << (slot + 1))) != 0) {
                        data(slot, request, mad);
                    }
                }
                if ((ready & SimSockets.CONTROL_READY) != 0) {
                    SimSockets.Peer from;
                    while (!stopping && (from = sockets.receiveControl(ctl)) != null) {
                        control(ctl, from);
                    }
                }
                if (System.nanoTime() - nextSweep >= 0) {
                    sweepVanished();
                    nextSweep = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(SWEEP_MILLIS);
                }
            } catch (IOException | RuntimeException e) {
                if (!stopping) {
                    warn.accept("ibsim protocol server: " + e);
                }
            }
        }
    }

    /** One control datagram: checked, carried out and answered, as ibsim's {@code sim_ctl} (ibsim/ibsim.c line 383). */
    private void control(ByteBuffer ctl, SimSockets.Peer from) throws IOException {
        if (ctl.limit() != SimWire.CTL_SIZE) {
            malformed("control datagram of " + ctl.limit() + " octets from " + from.name() + " (struct sim_ctl has "
                    + SimWire.CTL_SIZE + ")");
            return;
        }
        if (ctl.getInt(SimWire.CTL_MAGIC) != SimWire.MAGIC) {
            malformed(String.format("control datagram from %s with magic 0x%08x (SIM_MAGIC is 0x%08x)", from.name(),
                    ctl.getInt(SimWire.CTL_MAGIC), SimWire.MAGIC));
            return;
        }
        int type = ctl.getInt(SimWire.CTL_TYPE);
        boolean done;
        if (type == SimWire.CONNECT) {
            done = connect(ctl, from);
        } else {
            SimClient client = clientOf(ctl.getInt(SimWire.CTL_CLIENT), from);
            if (client == null) {
                malformed("control type " + type + " from " + from.name() + " for client "
                        + Integer.toUnsignedString(ctl.getInt(SimWire.CTL_CLIENT)) + ", which it has not attached");
                done = false;
            } else {
                done = answer(type, client, ctl);
            }
        }
        if (!done) {
            ctl.putInt(SimWire.CTL_TYPE, SimWire.ERROR);
        }
        ctl.position(0).limit(SimWire.CTL_SIZE);
        sockets.replyControl(ctl, from);
    }

    private synchronized SimClient clientOf(int slot, SimSockets.Peer from) {
        if (slot < 0 || slot >= SimWire.MAX_CLIENTS) {
            return null;
        }
        SimClient c = clients[slot];
        return c != null && c.control.sameAs(from) ? c : null;
    }

    /** The controls after CONNECT, answered from the client's attachment (ibsim/ibsim.c lines 254–380). */
    private boolean answer(int type, SimClient client, ByteBuffer ctl) {
        Attachment a = client.attachment();
        switch (type) {
            case SimWire.DISCONNECT -> {
                detach(client);
                info.accept("simulator client " + client.slot + " (pid " + client.id + ") disconnected");
            }
            case SimWire.GET_PORT -> SimWire.putData(ctl, ControlAnswers.port(a));
            case SimWire.GET_VENDOR -> SimWire.putData(ctl, ControlAnswers.vendor(a));
            case SimWire.GET_GID -> SimWire.putData(ctl, ControlAnswers.gid(a));
            case SimWire.GET_GUID -> SimWire.putData(ctl, ControlAnswers.guid(a));
            case SimWire.GET_NODEINFO -> SimWire.putData(ctl, a.nodeInfo());
            case SimWire.GET_PORTINFO -> SimWire.putData(ctl, a.portInfo(ctl.get(SimWire.CTL_DATA_OFFSET) & 0xff));
            case SimWire.SET_ISSM -> client.setSm(ctl.getInt(SimWire.CTL_DATA_OFFSET) != 0);
            case SimWire.GET_PKEYS -> SimWire.putData(ctl, a.pkeys());
            default -> {
                malformed("control type " + type + " from client " + client.slot + " (allowed "
                        + SimWire.CONNECT + ".." + SimWire.GET_PKEYS + ")");
                return false;
            }
        }
        return true;
    }

    /** SIM_CTL_CONNECT: a free slot, the attachment, the data socket connected to the client's (ibsim.c line 182). */
    private boolean connect(ByteBuffer ctl, SimSockets.Peer from) throws IOException {
        int id = ctl.getInt(SimWire.INFO_ID);
        int qp = ctl.getInt(SimWire.INFO_QP);
        boolean issm = ctl.getInt(SimWire.INFO_ISSM) != 0;
        String node = SimWire.nodeId(ctl);
        String who = "simulator client pid " + Integer.toUnsignedString(id) + " from " + from.name()
                + (node.isEmpty() ? "" : " for node \"" + node + "\"");
        SimClient client;
        synchronized (this) {
            int slot = freeSlot();
            if (slot < 0) {
                sweepVanished();
                slot = freeSlot();
            }
            if (slot < 0) {
                refused.incrementAndGet();
                warn.accept("refused " + who + ": all " + SimWire.MAX_CLIENTS
                        + " client slots are taken (ibsim's IBSIM_MAX_CLIENTS); attached: " + clients());
                return false;
            }
            client = new SimClient(this, slot, id, qp, issm, from);
            clients[slot] = client; // reserved; not open until its socket is connected
        }
        Attachment a;
        try {
            a = plane.attach(node, issm, client::deliver);
        } catch (AttachRefusedException | IllegalArgumentException e) {
            release(client);
            refused.incrementAndGet();
            warn.accept("refused " + who + ": " + e.getMessage());
            return false;
        }
        client.attached(a);
        String sm = issm ? smAlreadyOn(a.nodeName(), client) : null;
        if (sm != null) {
            release(client);
            refused.incrementAndGet();
            warn.accept("refused " + who + ": an SM is already attached at node \"" + a.nodeName() + "\" (" + sm + ")");
            return false;
        }
        try {
            sockets.connectClient(client.slot, from, id);
        } catch (IOException e) {
            release(client);
            refused.incrementAndGet();
            warn.accept("refused " + who + ": " + e.getMessage());
            return false;
        }
        drainStale(client.slot);
        client.open();
        ctl.putInt(SimWire.INFO_ID, client.slot);
        SimWire.putNodeId(ctl, a.nodeName());
        info.accept("simulator client " + client.slot + " (pid " + Integer.toUnsignedString(id) + ") attached at node \""
                + a.nodeName() + "\" port " + a.portNumber() + (issm ? " as SM" : ""));
        return true;
    }

    private int freeSlot() {
        for (int i = 0; i < clients.length; i++) {
            if (clients[i] == null) {
                return i;
            }
        }
        return -1;
    }

    private synchronized String smAlreadyOn(String node, SimClient except) {
        for (SimClient c : clients) {
            if (c != null && c != except && c.issm() && c.attachment() != null
                    && c.attachment().nodeName().equals(node)) {
                return c.describe();
            }
        }
        return null;
    }

    /** Datagrams a previous client of the slot left queued must not reach the new one. */
    private void drainStale(int slot) throws IOException {
        ByteBuffer scratch = SimWire.requestBuffer();
        while (sockets.receive(slot, scratch) >= 0) {
            // dropped
        }
    }

    /** The MADs on a client's data socket, handed to its attachment (ibsim's {@code sim_read_pkt}). */
    private void data(int slot, ByteBuffer request, byte[] mad) throws IOException {
        int n;
        while ((n = sockets.receive(slot, request)) != -1) {
            SimClient client;
            synchronized (this) {
                client = clients[slot];
            }
            if (n == SimSockets.GONE) {
                if (client != null) {
                    vanished(client, "its socket is gone");
                }
                continue;
            }
            if (client == null || !client.isOpen()) {
                malformed("datagram of " + n + " octets on the data socket of slot " + slot + ", which has no client");
                continue;
            }
            if (n != SimWire.REQUEST_SIZE) {
                malformed("datagram of " + n + " octets from client " + slot + " (struct sim_request has "
                        + SimWire.REQUEST_SIZE + ")");
                continue;
            }
            long length = request.getLong(SimWire.REQ_LENGTH);
            if (length < 0 || length > SimWire.MAD_SIZE) {
                malformed("sim_request from client " + slot + " with length " + Long.toUnsignedString(length)
                        + " (allowed 0.." + SimWire.MAD_SIZE + ")");
                continue;
            }
            request.get(SimWire.REQ_MAD, mad);
            madsIn.incrementAndGet();
            Attachment a = client.attachment();
            if (a != null) {
                a.send(SimWire.lid(request, SimWire.REQ_DLID), SimWire.lid(request, SimWire.REQ_SLID),
                        request.getInt(SimWire.REQ_DQP), request.getInt(SimWire.REQ_SQP), mad.clone(), (int) length);
            }
        }
    }

    private void malformed(String what) {
        long n = malformed.incrementAndGet();
        if (n <= LOGGED_MALFORMED) {
            warn.accept("ibsim protocol server dropped a malformed " + what
                    + (n == LOGGED_MALFORMED ? "; further malformed datagrams are only counted" : ""));
        }
    }

    /** Detaches clients whose process has ended (AF_UNIX, where the client id is its pid). */
    private void sweepVanished() {
        if (!sockets.clientIdIsPid()) {
            return;
        }
        List<SimClient> ended = new ArrayList<>();
        synchronized (this) {
            for (SimClient c : clients) {
                if (c != null && c.isOpen() && !ProcessHandle.of(Integer.toUnsignedLong(c.id)).map(ProcessHandle::isAlive)
                        .orElse(false)) {
                    ended.add(c);
                }
            }
        }
        for (SimClient c : ended) {
            vanished(c, "its process has ended");
        }
    }

    /** A client that went away without DISCONNECT: detached, with a log line. */
    void vanished(SimClient client, String why) {
        if (detach(client)) {
            vanished.incrementAndGet();
            warn.accept("simulator client " + client.slot + " (pid " + Integer.toUnsignedString(client.id)
                    + ") detached: " + why);
        }
    }

    /** Frees the client's slot and closes its attachment; false when it was already detached. */
    private boolean detach(SimClient client) {
        synchronized (this) {
            if (clients[client.slot] != client) {
                return false;
            }
            clients[client.slot] = null;
        }
        client.close();
        return true;
    }

    private void release(SimClient client) {
        synchronized (this) {
            if (clients[client.slot] == client) {
                clients[client.slot] = null;
            }
        }
        client.close();
    }

    /** Stops the server: detaches every client and closes the sockets (their names are free again). */
    @Override
    public void close() {
        stopping = true;
        sockets.wakeup();
        try {
            thread.join(TimeUnit.SECONDS.toMillis(5));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        List<SimClient> left = new ArrayList<>();
        synchronized (this) {
            for (SimClient c : clients) {
                if (c != null) {
                    left.add(c);
                }
            }
        }
        left.forEach(this::detach);
        sockets.close();
        info.accept("ibsim protocol server on " + sockets.describe() + " stopped");
    }
}
