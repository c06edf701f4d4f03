package ipoib.verbs.loopback.fabric;

import ipoib.api.sa.MadTransport;
import ipoib.api.verbs.VerbsException;
import ipoib.verbs.loopback.agent.Attachment;
import ipoib.verbs.loopback.agent.MadReceiver;
import ipoib.verbs.loopback.agent.SubnetManagementPlane;
import java.nio.ByteBuffer;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * sm=external: the management-datagram transport of a loopback port through the subnet's
 * management plane, as an HCA's QP1 sends its SA MADs: to the SM LID its PortInfo holds, QP1 to
 * QP1, the answers and reports coming back from the SM that attached (OpenSM). The plane hands
 * a MAD over with its lock held: the consumer gets a copy on the fabric's events loop.
 */
final class PlaneMadTransport implements MadTransport, MadReceiver {

    private final LoopPort port;
    private volatile Attachment attachment;
    private volatile Consumer<ByteBuffer> receiver;
    private final LongAdder undelivered = new LongAdder();

    PlaneMadTransport(LoopPort port) {
        this.port = port;
    }

    void attached(Attachment a) {
        this.attachment = a;
    }

    @Override
    public void send(ByteBuffer mad) {
        if (mad.remaining() != MAD_LENGTH) {
            throw new VerbsException("MAD send: " + mad.remaining() + " octets, a MAD has " + MAD_LENGTH);
        }
        int smLid = port.model.smLid();
        if (!port.isActive() || smLid == 0) {
            throw new VerbsException("MAD send: port " + port + " is " + port.state() + (port.lidValue() == 0
                    ? " without a LID: the subnet manager has not swept it yet" : ", no path to the SM"));
        }
        Attachment a = attachment;
        if (a == null) {
            throw new VerbsException("MAD send: port " + port + " is not attached to the management plane");
        }
        byte[] copy = new byte[MAD_LENGTH];
        mad.duplicate().get(copy);
        port.device.fabric.tapManagement(port.lidValue(), smLid, copy);
        a.send(smLid, 0, 1, 1, copy, MAD_LENGTH);
    }

    @Override
    public void setReceiver(Consumer<ByteBuffer> receiver) {
        this.receiver = receiver;
    }

    @Override
    public boolean received(int dlid, int slid, int dqp, int sqp, int status, byte[] mad, int length) {
        if (status == SubnetManagementPlane.UNDELIVERED) {
            undelivered.increment(); // the SA client's timeout and retries deal with it
            return true;
        }
        byte[] copy = java.util.Arrays.copyOf(mad, MAD_LENGTH);
        port.device.fabric.schedule(() -> {
            port.device.fabric.tapManagement(slid, dlid, copy);
            Consumer<ByteBuffer> r = receiver;
            if (r != null) {
                r.accept(ByteBuffer.wrap(copy).asReadOnlyBuffer());
            }
        }, 0);
        return true;
    }

    /** Requests the plane could not deliver to the SM (no SM attached, no route). */
    long undelivered() {
        return undelivered.sum();
    }

    void close() {
        Attachment a = attachment;
        attachment = null;
        if (a != null) {
            a.close();
        }
    }
}
