package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import java.util.Map;

/**
 * What a {@link LinkEngine} needs from its surroundings: the frame handlers, the link listeners,
 * EventAdmin and a log. The DS component answers from the service registry
 * ({@link ComponentHooks}); a test or benchmark answers itself.
 */
public interface LinkHooks {

    /** The handlers of an EtherType for this link (an array that stays valid; no allocation). */
    FrameHandler[] handlers(int etherType);

    /** Every frame handler of this link once, told at the end of each poll; none by default. */
    default FrameHandler[] allHandlers() {
        return HandlerTable.NONE;
    }

    /** Tells every link listener, in order. */
    void notifyListeners(IpoibLink link, LinkListener.Change change);

    /** Posts an EventAdmin event (asynchronously), if EventAdmin is there. */
    void postEvent(String topic, Map<String, Object> properties);

    void info(String message);

    void warn(String message, Throwable cause);

    void error(String message, Throwable cause);
}
