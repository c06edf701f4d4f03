package ipoib.api.resolve;

/**
 * States of a neighbour entry (Intel high-level design §2.1.4): the link-layer address is being
 * resolved (INCOMPLETE), the path record is being looked up (PATH_PENDING), the entry can send
 * (RESOLVED), it is due for revalidation (STALE), or resolution gave up (FAILED).
 */
public enum NeighbourState {
    INCOMPLETE, PATH_PENDING, RESOLVED, STALE, FAILED
}
