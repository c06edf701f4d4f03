package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import ipoib.api.link.IpoibLink;
import ipoib.api.link.LinkListener;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.osgi.service.event.Event;
import org.osgi.service.event.EventAdmin;
import org.osgi.service.log.Logger;

/**
 * The link engine's surroundings in the framework: the frame handler and link listener
 * whiteboards, EventAdmin when it is there, and the OSGi log. Filled by the DS component's
 * reference methods.
 */
final class ComponentHooks implements LinkHooks {
    private final Logger log;
    final FrameHandlerWhiteboard handlers = new FrameHandlerWhiteboard();
    private final List<LinkListener> listeners = new CopyOnWriteArrayList<>();
    private volatile EventAdmin eventAdmin;

    ComponentHooks(Logger log) {
        this.log = log;
    }

    void addListener(LinkListener listener) {
        listeners.add(listener);
    }

    void removeListener(LinkListener listener) {
        listeners.remove(listener);
    }

    void eventAdmin(EventAdmin admin) {
        eventAdmin = admin;
    }

    /** Forgets {@code admin} if it is the one in use. */
    void eventAdminGone(EventAdmin admin) {
        if (eventAdmin == admin) {
            eventAdmin = null;
        }
    }

    @Override
    public FrameHandler[] handlers(int etherType) {
        return handlers.get(etherType);
    }

    @Override
    public FrameHandler[] allHandlers() {
        return handlers.all();
    }

    @Override
    public void notifyListeners(IpoibLink link, LinkListener.Change change) {
        for (LinkListener l : listeners) {
            try {
                l.linkChanged(link, change);
            } catch (RuntimeException e) {
                log.warn("link listener " + l.getClass().getName() + " failed on " + change + " of " + link.name(), e);
            }
        }
    }

    @Override
    public void postEvent(String topic, Map<String, Object> properties) {
        EventAdmin admin = eventAdmin;
        if (admin != null) {
            admin.postEvent(new Event(topic, properties));
        }
    }

    @Override
    public void info(String message) {
        log.info(message);
    }

    @Override
    public void warn(String message, Throwable cause) {
        if (cause == null) {
            log.warn(message);
        } else {
            log.warn(message, cause);
        }
    }

    @Override
    public void error(String message, Throwable cause) {
        if (cause == null) {
            log.error(message);
        } else {
            log.error(message, cause);
        }
    }
}
