package ipoib.verbs.loopback.subnet;

/**
 * Told of every change to a port's management state. Called with the topology's lock held, in
 * the order of the changes: do not block and do not take other locks that a thread holding them
 * might wait for the topology's lock under.
 */
@FunctionalInterface
public interface TopologyListener {
    void portChanged(Port port, PortChange change);
}
