package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.CmTransport;
import ipoib.api.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The communication-management MADs of a loopback port: QP1 to the peer port's QP1 by LID, shown
 * to the wire tap as the UD packet a wire carries, delivered on the fabric's event thread (a MAD
 * never runs the receiver on the sender's thread, as on a wire).
 */
final class LoopCmTransport implements CmTransport {
    private final LoopPort port;
    private final AtomicReference<Receiver> receiver = new AtomicReference<>();

    LoopCmTransport(LoopPort port) {
        this.port = port;
    }

    @Override
    public void send(int destinationLid, ByteBuffer mad) {
        if (mad == null || mad.remaining() != MAD_LENGTH) {
            throw new VerbsException("CM MAD send: " + (mad == null ? "no MAD" : mad.remaining() + " octets")
                    + ", a MAD has " + MAD_LENGTH);
        }
        if (!port.isActive()) {
            throw new VerbsException("CM MAD send: port " + port + " is " + port.state());
        }
        byte[] copy = new byte[MAD_LENGTH];
        mad.duplicate().get(copy);
        port.device.fabric.cm.send(port, destinationLid, copy);
    }

    @Override
    public void setReceiver(Receiver r) {
        if (r == null) {
            receiver.set(null);
            return;
        }
        Receiver old = receiver.get();
        if (old != null && old != r) {
            throw new IllegalStateException("port " + port + " has a CM agent already");
        }
        receiver.set(r);
    }

    /** Hands a MAD to the port's CM agent (the fabric's event thread); false when the port has none. */
    boolean deliver(int sourceLid, byte[] mad) {
        Receiver r = receiver.get();
        if (r == null) {
            return false;
        }
        r.onMad(sourceLid, ByteBuffer.wrap(mad).asReadOnlyBuffer());
        return true;
    }
}
