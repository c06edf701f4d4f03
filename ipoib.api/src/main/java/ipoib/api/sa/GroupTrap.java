package ipoib.api.sa;

import ipoib.api.Gid;
import ipoib.api.Mgid;

/**
 * A multicast group trap reported by the SM to subscribers (IBA 14.2.5.1, 15.2.5.12:
 * trap 66 "group created", trap 67 "group deleted").
 *
 * @param type created or deleted
 * @param mgid the group
 * @param reporterGid the GID in the Notice's data details (the group's MGID for OpenSM)
 */
public record GroupTrap(Type type, Mgid mgid, Gid reporterGid) {

    public enum Type {
        CREATED(66), DELETED(67);

        private final int trapNumber;

        Type(int trapNumber) {
            this.trapNumber = trapNumber;
        }

        /** The IBA trap number. */
        public int trapNumber() {
            return trapNumber;
        }
    }
}
