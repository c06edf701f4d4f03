package ipoib.cm;

import ipoib.api.Gid;
import java.util.Objects;

/**
 * Where a port's CM agent is reached: its LID (CM MADs go to QP1 with the GSI Q_Key) and its GID,
 * plus the channel adapter GUID the messages carry.
 *
 * @param lid the port's LID
 * @param gid the port's GID
 * @param caGuid its channel adapter's GUID
 */
public record CmEndpoint(int lid, Gid gid, long caGuid) {
    public CmEndpoint {
        Objects.requireNonNull(gid, "gid");
        if (lid < 0 || lid > 0xFFFF) {
            throw new IllegalArgumentException("CM endpoint LID " + lid + " outside 0..65535");
        }
    }
}
