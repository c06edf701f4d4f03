package ipoib.verbs.loopback.ibsim;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * The server's sockets, as ibsim's {@code sim_init_conn} (ibsim/ibsim.c) opens them: one
 * control socket and one data socket per client slot, all bound when the server starts. Slot
 * {@code i}'s data socket is connected to the client's input socket at CONNECT.
 */
interface SimSockets extends AutoCloseable {
    /** The bit {@link #await} sets when the control socket has a datagram; slot {@code i} is bit {@code i + 1}. */
    int CONTROL_READY = 1;

    /** A control datagram's sender, to answer and to recognise a client by. */
    record Peer(String name, Object address) {
        boolean sameAs(Peer other) {
            return other != null && name.equals(other.name);
        }
    }

    /** Waits up to {@code timeoutMillis} for datagrams (or {@link #wakeup}); the sockets with one waiting, as bits. */
    int await(int timeoutMillis) throws IOException;

    /** Ends a running {@link #await} at once. */
    void wakeup();

    /** Takes one control datagram into {@code buffer} (its limit: the length), or returns null when none waits. */
    Peer receiveControl(ByteBuffer buffer) throws IOException;

    /** Sends {@code buffer} to a control datagram's sender. */
    void replyControl(ByteBuffer buffer, Peer to) throws IOException;

    /**
     * Connects slot {@code slot}'s data socket to the input socket of the client that sent a
     * CONNECT from {@code controlPeer} with {@code sim_client_info.id} {@code id} (its pid on
     * AF_UNIX, its data socket's port on UDP: {@code sim_init} in umad2sim/sim_client.c).
     */
    void connectClient(int slot, Peer controlPeer, int id) throws IOException;

    /** What {@link #receive} returns when the client's socket is gone. */
    int GONE = -2;

    /**
     * Takes one datagram of slot {@code slot}'s client into {@code buffer} and returns its
     * length, -1 when none waits, or {@link #GONE} when the client's socket is gone.
     */
    int receive(int slot, ByteBuffer buffer) throws IOException;

    /** Sends {@code buffer} to slot {@code slot}'s client; false when its socket is gone (the client vanished). */
    boolean send(int slot, ByteBuffer buffer) throws IOException;

    /** Whether a client's {@code sim_client_info.id} is its process id (AF_UNIX), so that a vanished process can be found. */
    boolean clientIdIsPid();

    /** Where the server listens, for log lines and the shell. */
    String describe();

    /** What a client needs in its environment to attach here. */
    String clientEnvironment();

    @Override
    void close();
}
