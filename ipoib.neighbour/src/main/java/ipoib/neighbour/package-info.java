/**
 * The neighbour table shared by the ARP and Neighbor Discovery resolvers (not exported: each
 * resolver bundle carries its own copy).
 *
 * <p>{@link ipoib.neighbour.NeighbourEngine} keeps one table per UP link and runs the shadow ARP
 * state machine of the Intel high-level design §2.1.4: an entry is INCOMPLETE while the
 * protocol solicits the peer's link-layer address, PATH_PENDING while the subnet administrator
 * is asked for the PathRecord to its GID, RESOLVED once an address handle exists (frames queued
 * meanwhile are sent in order), STALE while it is being revalidated (RFC 4391 §9.4: a peer's QPN
 * can change), FAILED when resolution gave up. The protocol (ARP or ND) plugs in through
 * {@link ipoib.neighbour.Protocol}.
 */
package ipoib.neighbour;
