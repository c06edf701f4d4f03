package ipoib.verbs.loopback.subnet;

/** Where the management plane delivers the MADs for one attached client ({@code struct sim_request}). */
@FunctionalInterface
public interface MadReceiver {
    void received(int dlid, int slid, int dqp, int sqp, int status, byte[] mad, int length);
}
