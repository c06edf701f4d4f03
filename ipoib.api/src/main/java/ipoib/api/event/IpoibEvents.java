package ipoib.api.event;

/**
 * EventAdmin topics and property names. Subscribe with a topic or a wildcard such as
 * {@code ipoib/link/*}. Events are posted asynchronously.
 */
public final class IpoibEvents {
    private IpoibEvents() {}

    /** A link came UP. Properties: {@link #LINK}, {@link #STATE}, {@link #REASON}, {@link #MTU}. */
    public static final String LINK_UP = "ipoib/link/UP";
    /** A link went DOWN or is JOINING again. Properties: {@link #LINK}, {@link #STATE}, {@link #REASON}. */
    public static final String LINK_DOWN = "ipoib/link/DOWN";
    /** A neighbour became RESOLVED. Properties: {@link #LINK}, {@link #ADDRESS}, {@link #LINK_ADDRESS}. */
    public static final String NEIGHBOUR_RESOLVED = "ipoib/neighbour/RESOLVED";
    /** Resolution of a neighbour failed. Properties: {@link #LINK}, {@link #ADDRESS}, {@link #REASON}. */
    public static final String NEIGHBOUR_FAILED = "ipoib/neighbour/FAILED";
    /** A neighbour's link-layer address changed (e.g. new QPN after a reset). */
    public static final String NEIGHBOUR_CHANGED = "ipoib/neighbour/CHANGED";
    /** The port joined a group. Properties: {@link #LINK}, {@link #MGID}, {@link #JOIN_STATE}. */
    public static final String GROUP_JOINED = "ipoib/group/JOINED";
    /** The port left a group. Properties: {@link #LINK}, {@link #MGID}, {@link #JOIN_STATE}. */
    public static final String GROUP_LEFT = "ipoib/group/LEFT";
    /** A join failed. Properties: {@link #LINK}, {@link #MGID}, {@link #REASON}. */
    public static final String GROUP_JOIN_FAILED = "ipoib/group/JOIN_FAILED";
    /** A verbs provider appeared. Properties: {@link #PROVIDER}, {@link #REASON}. */
    public static final String PROVIDER_ADDED = "ipoib/provider/ADDED";
    /** A verbs provider went away. Properties: {@link #PROVIDER}. */
    public static final String PROVIDER_REMOVED = "ipoib/provider/REMOVED";

    /** Link name (String). */
    public static final String LINK = "link";
    /** Link state name (String). */
    public static final String STATE = "state";
    /** Human-readable reason (String). */
    public static final String REASON = "reason";
    /** IPoIB MTU (Integer). */
    public static final String MTU = "mtu";
    /** IP address, text form (String). */
    public static final String ADDRESS = "address";
    /** Link-layer address, text form (String). */
    public static final String LINK_ADDRESS = "linkAddress";
    /** MGID, text form (String). */
    public static final String MGID = "mgid";
    /** Join state, text form (String). */
    public static final String JOIN_STATE = "joinState";
    /** Provider name (String). */
    public static final String PROVIDER = "provider";
}
