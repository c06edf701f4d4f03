package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * The {@link FrameHandler} services one link dispatches to: those registered for every link and
 * those whose {@value FrameHandler#LINK_PROPERTY} names this link, by their
 * {@value FrameHandler#ETHERTYPE_PROPERTY}. A bridge's handler
 * ({@value FrameHandler#BRIDGE_PROPERTY}) owns its EtherType: while it is there, the link's frames
 * of that EtherType go to it alone, so that one owner sees each frame. The receive thread looks
 * them up per frame in a {@link HandlerTable} that is replaced as a whole when handlers come and go.
 */
final class FrameHandlerWhiteboard {
    private record Entry(FrameHandler handler, int etherType, String link, boolean bridge) {}

    private final List<Entry> entries = new CopyOnWriteArrayList<>();
    private String link;
    private volatile HandlerTable table = HandlerTable.EMPTY;

    /**
     * Adds a handler service.
     *
     * @return null, or why the handler is ignored (a missing or bad EtherType property)
     */
    String add(FrameHandler handler, Map<String, Object> properties) {
        Object type = properties.get(FrameHandler.ETHERTYPE_PROPERTY);
        if (!(type instanceof Number number) || number.intValue() < 0 || number.intValue() > 0xFFFF) {
            return "frame handler " + handler.getClass().getName() + " ignored: service property "
                    + FrameHandler.ETHERTYPE_PROPERTY + " must be an Integer 0..0xFFFF, is " + type;
        }
        Object only = properties.get(FrameHandler.LINK_PROPERTY);
        entries.add(new Entry(handler, number.intValue(), only == null ? null : only.toString(),
                properties.get(FrameHandler.BRIDGE_PROPERTY) != null));
        rebuild();
        return null;
    }

    void remove(FrameHandler handler) {
        entries.removeIf(e -> e.handler() == handler);
        rebuild();
    }

    /** The link's name (null while it has none): handlers registered for other links are left out. */
    synchronized void forLink(String name) {
        link = name;
        rebuild();
    }

    /** The handlers of an EtherType (an array that stays valid; no allocation). */
    FrameHandler[] get(int etherType) {
        return table.get(etherType);
    }

    /** Every handler of the link once (an array that stays valid; no allocation). */
    FrameHandler[] all() {
        return table.all();
    }

    private synchronized void rebuild() {
        Set<Integer> bridged = new HashSet<>();
        for (Entry e : entries) {
            if (e.bridge() && receives(e)) {
                bridged.add(e.etherType());
            }
        }
        Map<Integer, List<FrameHandler>> byType = new HashMap<>();
        for (Entry e : entries) {
            if (receives(e) && (e.bridge() || !bridged.contains(e.etherType()))) {
                byType.computeIfAbsent(e.etherType(), k -> new ArrayList<>()).add(e.handler());
            }
        }
        table = HandlerTable.of(byType);
    }

    /** Whether a handler is registered for every link or for this one. */
    private boolean receives(Entry e) {
        return e.link() == null || e.link().equals(link);
    }
}
