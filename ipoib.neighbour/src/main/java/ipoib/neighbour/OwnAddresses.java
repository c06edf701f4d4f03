package ipoib.neighbour;

import ipoib.api.host.InterfaceAddress;
import ipoib.api.host.InterfaceAddresses;
import java.net.InetAddress;

/** The interface's own addresses, which are never its neighbours. */
public final class OwnAddresses {
    private OwnAddresses() {}

    /**
     * Why {@code address} cannot be a neighbour on the link — it is one of the link's own
     * addresses — or null (also when there is no address table).
     */
    public static String notANeighbour(InterfaceAddresses table, String linkName, InetAddress address) {
        if (table == null) {
            return null;
        }
        for (InterfaceAddress mine : table.addresses(linkName)) {
            if (mine.address().equals(address)) {
                return "it is an address of interface " + mine.link() + " itself";
            }
        }
        return null;
    }
}
