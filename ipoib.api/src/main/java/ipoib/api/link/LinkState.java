package ipoib.api.link;

/**
 * The state of an IPoIB link. DOWN: no provider, port not active, or stopped. JOINING: queue pair
 * created, broadcast-group join under way. UP: joined, attached, receive buffers posted.
 */
public enum LinkState {
    DOWN, JOINING, UP
}
