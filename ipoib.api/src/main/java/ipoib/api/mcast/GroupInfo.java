package ipoib.api.mcast;

import ipoib.api.JoinState;
import ipoib.api.Lid;
import ipoib.api.Mgid;
import java.net.InetAddress;

/**
 * A snapshot of one group on a link.
 *
 * @param link the link name
 * @param mgid the group's MGID
 * @param group the IP group, or null when not known (router mode, broadcast)
 * @param mlid the MLID, or null while joining
 * @param joinState the port's join state, or null while joining
 * @param origin why the port is in the group
 * @param listeners local listeners of the IP group
 * @param queuedFrames frames waiting for the join
 * @param state a short text of the join state machine (JOINING, JOINED, RETRY in 4 s, ...)
 */
public record GroupInfo(String link, Mgid mgid, InetAddress group, Lid mlid, JoinState joinState, GroupOrigin origin,
                        int listeners, int queuedFrames, String state) {
}
