package ipoib.link.internal;

import ipoib.api.event.IpoibEvents;
import ipoib.api.link.LinkState;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What a link publishes to every thread: its state, the reason for it, and the resources of the
 * UP period. Written on the control thread only; read by the data path without locks. A change of
 * state is logged and posted as an EventAdmin event here, so no transition can forget to.
 */
final class LinkStatus {
    private final String name;
    private final LinkHooks hooks;
    private volatile LinkState state = LinkState.DOWN;
    private volatile String reason = "no verbs provider";
    private volatile LinkResources resources;

    LinkStatus(String name, LinkHooks hooks) {
        this.name = name;
        this.hooks = hooks;
    }

    LinkState state() {
        return state;
    }

    String reason() {
        return reason;
    }

    /** The resources of the UP period, or null; may still be set while the state is being changed. */
    LinkResources resources() {
        return resources;
    }

    /** The resources while the link is UP, else null: what the data path sends on. */
    LinkResources upResources() {
        LinkResources r = resources;
        return r == null || state != LinkState.UP ? null : r;
    }

    /** The resources while UP, else an {@link IllegalStateException} naming the operation and the reason. */
    LinkResources requireUp(String operation) {
        LinkResources r = upResources();
        if (r == null) {
            throw notUp(operation);
        }
        return r;
    }

    /** The failure of an operation that needs the link UP. */
    IllegalStateException notUp(String operation) {
        return new IllegalStateException(operation + ": link " + name + " is " + state + " (" + reason + ")");
    }

    void resources(LinkResources r) {
        resources = r;
    }

    /**
     * Back to DOWN without telling anyone, right before the state machine brings the link up
     * again (a join retry): the attempt that follows reports its own state.
     */
    void quietlyDown() {
        state = LinkState.DOWN;
    }

    /** Sets the state: logged (UP is logged where it is reached, with its parameters) and posted. */
    void set(LinkState newState, String why) {
        LinkState old = state;
        state = newState;
        reason = why;
        if (old == newState) {
            return;
        }
        if (newState != LinkState.UP) {
            hooks.info(name + " " + newState + ": " + why);
        }
        Map<String, Object> props = new LinkedHashMap<>();
        props.put(IpoibEvents.LINK, name);
        props.put(IpoibEvents.STATE, newState.name());
        props.put(IpoibEvents.REASON, why);
        if (newState == LinkState.UP) {
            LinkResources r = resources;
            props.put(IpoibEvents.MTU, r == null ? 0 : r.mtu);
            hooks.postEvent(IpoibEvents.LINK_UP, props);
        } else if (old == LinkState.UP) {
            hooks.postEvent(IpoibEvents.LINK_DOWN, props);
        }
    }
}
