package ipoib.neighbour;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * The frames waiting for one neighbour to resolve: copies (the sender keeps its segment), in
 * order, bounded by the caller's limit. Guarded by the neighbour's lock.
 */
final class PendingFrames {

    /** One waiting frame. */
    record Pending(int etherType, MemorySegment frame) {}

    private final ArrayDeque<Pending> queue;

    PendingFrames(int limit) {
        queue = new ArrayDeque<>(Math.min(limit, 16));
    }

    /** Queues a copy of the frame; false when {@code limit} frames wait already. */
    boolean add(int etherType, MemorySegment frame, int limit) {
        if (queue.size() >= limit) {
            return false;
        }
        byte[] copy = new byte[(int) frame.byteSize()];
        MemorySegment.copy(frame, 0, MemorySegment.ofArray(copy), 0, copy.length);
        queue.add(new Pending(etherType, MemorySegment.ofArray(copy)));
        return true;
    }

    int size() {
        return queue.size();
    }

    /** Takes every waiting frame, in order. */
    List<Pending> drain() {
        if (queue.isEmpty()) {
            return List.of();
        }
        List<Pending> out = new ArrayList<>(queue);
        queue.clear();
        return out;
    }
}
