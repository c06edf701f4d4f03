package ipoib.api.verbs;

import ipoib.api.IbMtu;
import ipoib.api.Lid;
import ipoib.api.Rate;

/**
 * A snapshot of a port's attributes (IBA 11.2.1.2 query HCA port).
 *
 * @param state logical state
 * @param lid base LID ({@link Lid#UNASSIGNED} before the SM assigned one)
 * @param lmc LID mask control, 0..7
 * @param smLid LID of the subnet manager
 * @param smServiceLevel SL to use towards the SM
 * @param activeMtu the MTU in use
 * @param maxMtu the largest MTU the port supports
 * @param rate the active rate
 * @param subnetPrefix the subnet prefix of GID index 0
 * @param gidTableLength entries in the GID table
 * @param pkeyTableLength entries in the P_Key table
 */
public record PortAttributes(PortState state, Lid lid, int lmc, Lid smLid, int smServiceLevel, IbMtu activeMtu,
                             IbMtu maxMtu, Rate rate, long subnetPrefix, int gidTableLength, int pkeyTableLength) {

    public boolean isActive() {
        return state == PortState.ACTIVE;
    }
}
