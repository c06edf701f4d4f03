package ipoib.verbs.loopback.fabric;

import ipoib.api.sa.MadTransport;
import ipoib.api.verbs.VerbsException;
import java.nio.ByteBuffer;
import java.util.function.Consumer;

/**
 * The management-datagram transport of a loopback port: MADs go to the emulated SA on its own
 * thread, answers and reports come back on that thread.
 */
final class LoopMadTransport implements MadTransport {
    private final LoopPort port;
    private final SubnetAdministratorEmulator sa;
    private volatile Consumer<ByteBuffer> receiver;

    LoopMadTransport(LoopPort port, SubnetAdministratorEmulator sa) {
        this.port = port;
        this.sa = sa;
    }

    @Override
    public void send(ByteBuffer mad) {
        if (mad.remaining() != MAD_LENGTH) {
            throw new VerbsException("MAD send: " + mad.remaining() + " octets, a MAD has " + MAD_LENGTH);
        }
        if (!port.isActive()) {
            throw new VerbsException("MAD send: port " + port + " is " + port.state() + ", no path to the SM");
        }
        byte[] copy = new byte[MAD_LENGTH];
        mad.duplicate().get(copy);
        port.device.fabric.tapManagement(port.lidValue(), SubnetManager.SM_LID, copy);
        sa.submit(port, copy);
    }

    @Override
    public void setReceiver(Consumer<ByteBuffer> receiver) {
        this.receiver = receiver;
    }

    /** Hands a MAD from the SA to the port's consumer (on the SA thread). */
    void deliver(byte[] mad) {
        port.device.fabric.tapManagement(SubnetManager.SM_LID, port.lidValue(), mad);
        Consumer<ByteBuffer> r = receiver;
        if (r != null) {
            r.accept(ByteBuffer.wrap(mad).asReadOnlyBuffer());
        }
    }
}
