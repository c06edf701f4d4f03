package ipoib.verbs.loopback.fabric;

import ipoib.api.verbs.AddressHandle;
import ipoib.api.verbs.AddressVector;
import ipoib.api.verbs.VerbsException;

/** An address handle: the vector, pre-split into the fields the send path reads. */
final class LoopAddressHandle implements AddressHandle {
    final LoopPort port;
    final AddressVector vector;
    final int dlid;
    final boolean multicast;
    final boolean global;
    final long dgidPrefix;
    final long dgidInterfaceId;
    private volatile boolean closed;

    LoopAddressHandle(LoopPort port, AddressVector vector) {
        this.port = port;
        this.vector = vector;
        this.dlid = vector.destinationLid().value();
        this.multicast = vector.destinationLid().isMulticast();
        if (!multicast && !vector.destinationLid().isUnicast()) {
            throw new VerbsException("address handle: destination LID " + vector.destinationLid()
                    + " is neither unicast (0x0001-0xbfff) nor multicast (0xc000-0xfffe)");
        }
        if (multicast && !vector.global()) {
            throw new VerbsException("address handle: multicast destination " + vector.destinationLid()
                    + " needs a GRH (global vector with the MGID)");
        }
        this.global = vector.global();
        this.dgidPrefix = global ? vector.destinationGid().prefix() : 0;
        this.dgidInterfaceId = global ? vector.destinationGid().interfaceId() : 0;
    }

    @Override
    public AddressVector vector() {
        return vector;
    }

    boolean isClosed() {
        return closed;
    }

    @Override
    public void close() {
        closed = true;
    }
}
