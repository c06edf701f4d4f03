package ipoib.link.internal;

import ipoib.api.link.FrameHandler;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The frame handlers of each EtherType, looked up per received frame without boxing the key or
 * allocating: an immutable table of a few primitive keys, scanned linearly (links handle a
 * handful of EtherTypes), replaced as a whole when handlers come and go.
 */
final class HandlerTable {
    static final FrameHandler[] NONE = new FrameHandler[0];
    static final HandlerTable EMPTY = new HandlerTable(new int[0], new FrameHandler[0][], NONE);

    private final int[] etherTypes;
    private final FrameHandler[][] handlers;
    /** Every handler once, whatever its EtherTypes. */
    private final FrameHandler[] all;

    private HandlerTable(int[] etherTypes, FrameHandler[][] handlers, FrameHandler[] all) {
        this.etherTypes = etherTypes;
        this.handlers = handlers;
        this.all = all;
    }

    /** A table from handlers listed per EtherType. */
    static HandlerTable of(Map<Integer, List<FrameHandler>> byEtherType) {
        int[] types = new int[byEtherType.size()];
        FrameHandler[][] lists = new FrameHandler[types.length][];
        Set<FrameHandler> all = Collections.newSetFromMap(new IdentityHashMap<>());
        int i = 0;
        for (Map.Entry<Integer, List<FrameHandler>> e : byEtherType.entrySet()) {
            types[i] = e.getKey();
            lists[i] = e.getValue().toArray(NONE);
            all.addAll(e.getValue());
            i++;
        }
        return new HandlerTable(types, lists, all.toArray(NONE));
    }

    /** Every handler once (for the end of a poll). */
    FrameHandler[] all() {
        return all;
    }

    /** The handlers of an EtherType, {@link #NONE} when there are none. */
    FrameHandler[] get(int etherType) {
        int[] types = etherTypes;
        for (int i = 0; i < types.length; i++) {
            if (types[i] == etherType) {
                return handlers[i];
            }
        }
        return NONE;
    }
}
