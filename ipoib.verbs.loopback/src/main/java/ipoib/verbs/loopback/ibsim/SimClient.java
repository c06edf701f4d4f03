package ipoib.verbs.loopback.ibsim;

import ipoib.verbs.loopback.agent.Attachment;
import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * One attached client of the server (ibsim's {@code Client}, ibsim/sim.h): its slot, its
 * {@code sim_client_info} (pid or data port, QP, whether it is an SM), the address its
 * controls come from, and its attachment to the management plane. It turns the MADs the plane
 * delivers into {@code sim_request} datagrams on its slot's data socket.
 */
final class SimClient {
    final int slot;
    final int id;
    final int qp;
    final SimSockets.Peer control;
    private final SimulatorServer server;
    private final ByteBuffer out = SimWire.requestBuffer();
    private volatile Attachment attachment;
    private volatile boolean issm;
    /** Set once the data socket is connected; cleared at detach: later deliveries are dropped. */
    private volatile boolean open;

    SimClient(SimulatorServer server, int slot, int id, int qp, boolean issm, SimSockets.Peer control) {
        this.server = server;
        this.slot = slot;
        this.id = id;
        this.qp = qp;
        this.issm = issm;
        this.control = control;
    }

    void attached(Attachment a) {
        this.attachment = a;
    }

    Attachment attachment() {
        return attachment;
    }

    boolean issm() {
        return issm;
    }

    void setSm(boolean sm) {
        issm = sm;
        attachment.setSm(sm);
    }

    void open() {
        open = true;
    }

    boolean isOpen() {
        return open;
    }

    /** Detaches from the plane; idempotent. */
    void close() {
        synchronized (out) {
            if (!open && attachment == null) {
                return;
            }
            open = false;
        }
        Attachment a = attachment;
        attachment = null;
        if (a != null) {
            a.close();
        }
    }

    /**
     * A MAD from the plane for this client: one {@code sim_request} on the slot's data socket.
     * The plane calls it with its lock held: the socket does not block (a full one drops the
     * MAD, counted), and a client found gone is detached later by the server's thread.
     *
     * @return false when the client is gone (detached, its socket refuses datagrams): the plane
     *         gives a request back to its sender
     */
    boolean deliver(int dlid, int slid, int dqp, int sqp, int status, byte[] mad, int length) {
        boolean sent;
        synchronized (out) {
            if (!open) {
                server.countUndeliverable();
                return false;
            }
            out.clear();
            SimWire.putLid(out, SimWire.REQ_DLID, dlid);
            SimWire.putLid(out, SimWire.REQ_SLID, slid);
            out.putInt(SimWire.REQ_DQP, dqp);
            out.putInt(SimWire.REQ_SQP, sqp);
            out.putInt(SimWire.REQ_STATUS, status);
            out.putInt(SimWire.REQ_STATUS + 4, 0);
            out.putLong(SimWire.REQ_LENGTH, length);
            int n = Math.min(mad.length, SimWire.MAD_SIZE);
            out.put(SimWire.REQ_MAD, mad, 0, n);
            for (int i = n; i < SimWire.MAD_SIZE; i++) {
                out.put(SimWire.REQ_MAD + i, (byte) 0);
            }
            out.position(0).limit(SimWire.REQUEST_SIZE);
            try {
                sent = server.sockets().send(slot, out);
            } catch (IOException e) {
                server.undeliverable(this, e.getMessage());
                return true; // a full socket: dropped and counted, the client is still there
            }
        }
        if (sent) {
            server.countDelivered();
        } else {
            server.vanishedLater(this, "its socket refuses datagrams");
        }
        return sent;
    }

    /** One line as ibsim's {@code list_connections} prints a client. */
    String describe() {
        Attachment a = attachment;
        return "client " + slot + ": pid " + id + " at node \"" + (a == null ? "?" : a.nodeName()) + "\" port "
                + (a == null ? "?" : a.portNumber()) + ", qp " + qp + (issm ? " SM" : "");
    }
}
